"""Campaign labels in the formats the rest of the project reads.

* :func:`vote_rows` — pairwise votes (rankings split into one vote per pair of outputs, the
  better-ranked output winning), one dict per vote::

      {"prompt_id", "model_a", "model_b", "winner", "criterion", "annotator", "shown_left",
       "seconds", "excluded", "item", "prompt", "image_a", "image_b", "at"}

  the §13 fields (``prompt_id`` names the prompt, :func:`prompt_id`) plus ``item``,
  ``prompt``, ``image_a``/``image_b`` (paths ``images/<key>.<ext>``, written next to the
  file by ``judge campaign votes``) and ``at``.
  ``judge leaderboard`` and ``meta-eval --dataset votes`` read it and skip ``excluded``
  rows. Validation tasks never appear.
  ``shown_left`` is the item side (``a``/``b``) shown on the left (rankings: null).
* :func:`rating_rows` — one rating per line: ``item``, ``model``, ``annotator``, ``rating``,
  ``criterion``, ``seconds``, ``reason``, ``excluded``, ``at``.
* :func:`edit_ratings_lines` — kept ratings grouped per item in the ``edit-ratings`` format
  (``meta-eval --dataset edit-ratings``).

Example:
    >>> rec = CampaignRecord.model_validate({"id": "c", "kind": "pairwise",
    ...        "criterion": "preference", "card": {"question": "?"},
    ...        "image_ext": {"k1": "png", "k2": "png"},
    ...        "items": [{"id": "i1", "prompt": "p", "a": {"model": "x", "image": "k1"},
    ...                   "b": {"model": "y", "image": "k2"}, "validation": None}]})
    >>> ans = [{"item": "i1", "annotator": "a01", "accepted": True, "choice": "b",
    ...         "shown_left": "a", "seconds": 3.0, "at": "t", "validation": False}]
    >>> row = vote_rows(rec, ans, excluded=set())[0]
    >>> row["winner"], row["model_b"], row["image_b"]
    ('b', 'y', 'images/k2.png')
"""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
import json
from collections.abc import Iterable, Mapping
from typing import Any

from eval.campaigns.record import CampaignRecord, StoredItem

VOTE_FIELDS = (
    "prompt_id",
    "model_a",
    "model_b",
    "winner",
    "criterion",
    "annotator",
    "shown_left",
    "seconds",
    "excluded",
    "item",
    "prompt",
    "image_a",
    "image_b",
    "at",
    "lang",
    "prompt_language",
)
RATING_FIELDS = (
    "item",
    "model",
    "annotator",
    "rating",
    "criterion",
    "seconds",
    "reason",
    "excluded",
    "at",
    "prompt",
    "image",
    "source_image",
    "instruction",
    "lang",
    "prompt_language",
)


def image_path(record: CampaignRecord, key: str | None) -> str | None:
    """Where an export puts an image: ``images/<key>.<ext>``."""
    if not key:
        return None
    return f"images/{key}.{record.image_ext.get(key, 'png')}"


def prompt_id(item: StoredItem) -> str:
    """Which prompt a vote is on: items with the same prompt text share it (``prompt-`` and
    12 hex digits of the text's SHA-256), an item without a prompt is its own. Boards count
    and resample prompts by it, so several pairs of one prompt count once.

    >>> a, b = StoredItem(id="t1:x-vs-y", prompt="a red kite"), StoredItem(id="t1:x-vs-z",
    ...     prompt="a red kite")
    >>> prompt_id(a) == prompt_id(b) != prompt_id(StoredItem(id="i9"))
    True
    """
    if not item.prompt:
        return item.id
    return "prompt-" + hashlib.sha256(item.prompt.encode()).hexdigest()[:12]


def _kept_answers(answers: Iterable[Mapping[str, Any]]) -> Iterable[Mapping[str, Any]]:
    return (a for a in answers if a.get("accepted") and not a.get("validation"))


def _vote(
    item: StoredItem,
    record: CampaignRecord,
    ans: Mapping[str, Any],
    pair: tuple[str, str, str, str | None, str | None],
    shown_left: str | None,
    excluded: set[str],
) -> dict[str, Any]:
    """One vote row, its keys in :data:`VOTE_FIELDS` order. ``pair``: model a, model b,
    winner, image a, image b."""
    return {
        "prompt_id": prompt_id(item),
        "model_a": pair[0],
        "model_b": pair[1],
        "winner": pair[2],
        "criterion": record.criterion,
        "annotator": ans["annotator"],
        "shown_left": shown_left,
        "seconds": ans.get("seconds"),
        "excluded": ans["annotator"] in excluded,
        "item": item.id,
        "prompt": item.prompt or "",
        "image_a": pair[3],
        "image_b": pair[4],
        "at": ans.get("at"),
        "lang": ans.get("lang"),
        "prompt_language": ans.get("prompt_language"),
    }


def vote_rows(
    record: CampaignRecord, answers: Iterable[Mapping[str, Any]], excluded: set[str]
) -> list[dict[str, Any]]:
    """Votes of a pairwise or ranking campaign (validation answers left out)."""
    out: list[dict[str, Any]] = []
    for ans in _kept_answers(answers):
        item = record.find(ans["item"])
        if item is None:
            continue
        if record.kind == "pairwise" and item.a is not None and item.b is not None:
            a, b = item.a, item.b
            pair = (a.model, b.model, ans["choice"], image_path(record, a.image),
                    image_path(record, b.image))  # fmt: skip
            out.append(_vote(item, record, ans, pair, ans.get("shown_left"), excluded))
            continue
        image_of = {o.model: o.image for o in item.outputs or []}
        for better, worse in itertools.combinations(ans["order"], 2):
            m_a, m_b = sorted((better, worse))
            pair = (m_a, m_b, "a" if better == m_a else "b", image_path(record, image_of[m_a]),
                    image_path(record, image_of[m_b]))  # fmt: skip
            out.append(_vote(item, record, ans, pair, None, excluded))
    return out


def rating_rows(
    record: CampaignRecord, answers: Iterable[Mapping[str, Any]], excluded: set[str]
) -> list[dict[str, Any]]:
    """Ratings of a rating campaign (validation answers left out)."""
    out = []
    for ans in _kept_answers(answers):
        item = record.find(ans["item"])
        if item is None:
            continue
        out.append(
            {
                "item": item.id,
                "model": item.model,
                "annotator": ans["annotator"],
                "rating": ans["rating"],
                "criterion": record.criterion,
                "seconds": ans.get("seconds"),
                "reason": ans.get("reason"),
                "excluded": ans["annotator"] in excluded,
                "at": ans.get("at"),
                "prompt": item.prompt,
                "image": image_path(record, item.image),
                "source_image": image_path(record, item.source_image),
                "instruction": item.instruction,
                "lang": ans.get("lang"),
                "prompt_language": ans.get("prompt_language"),
            }
        )
    return out


def edit_ratings_lines(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Kept ratings of edits (items with a source image) in the ``edit-ratings`` format."""
    grouped: dict[str, dict[str, Any]] = {}
    for r in rows:
        if r.get("excluded") or not r.get("source_image"):
            continue
        line = grouped.setdefault(
            r["item"],
            {
                "id": r["item"],
                "instruction": r["instruction"],
                "source_image": r["source_image"],
                "edited_image": r["image"],
                "editor": r["model"],
                "ratings": {},
            },
        )
        line["ratings"].setdefault(r["criterion"], {})[r["annotator"]] = r["rating"]
    return list(grouped.values())


def to_jsonl(rows: Iterable[Mapping[str, Any]]) -> str:
    """One JSON object per line."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def cell(value: Any) -> Any:
    """One CSV cell: None as empty, booleans as true/false, and text that a spreadsheet
    would run as a formula (starting with ``= + - @``, tab or carriage return) behind a
    leading ``'`` (OWASP's advice), so it shows as the text it is.

    >>> cell("=HYPERLINK(1)"), cell("-2 stars"), cell(-2), cell(True), cell(None)
    ("'=HYPERLINK(1)", "'-2 stars", -2, 'true', '')
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def to_csv(rows: Iterable[Mapping[str, Any]], fields: Iterable[str], header: bool = True) -> str:
    """A CSV table (with its header unless ``header`` is False: a later part of a streamed
    table), every cell through :func:`cell`."""
    names = list(fields)
    buf = io.StringIO()
    writer = csv.writer(buf)
    if header:
        writer.writerow(names)
    writer.writerows([cell(r.get(k)) for k in names] for r in rows)
    return buf.getvalue()


def vote_units(rows: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, str]]:
    """Kept votes as agreement units: ``{item|model_a|model_b: {annotator: winner}}`` (the
    item, where a row names it, else its ``prompt_id``: one unit per pair shown)."""
    units: dict[str, dict[str, str]] = {}
    for r in rows:
        if not r.get("excluded"):
            unit = r.get("item") or r["prompt_id"]
            units.setdefault(f"{unit}|{r['model_a']}|{r['model_b']}", {})[
                r["annotator"]
            ] = r["winner"]
    return units


def rating_units(rows: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """Kept ratings as agreement units: ``{item: {annotator: rating}}``."""
    units: dict[str, dict[str, float]] = {}
    for r in rows:
        if not r.get("excluded"):
            units.setdefault(r["item"], {})[r["annotator"]] = float(r["rating"])
    return units
