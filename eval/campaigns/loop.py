"""The loop closes: a rating campaign's kept ratings become exemplars of a memory, and the
judge–human agreement is compared before and after on the items held out of the memory.

* :func:`aggregate` — kept ratings (flagged annotators' rows excluded) per item: the mean
  rating of the campaign's criterion, its standard deviation and count, and the annotators'
  reasons joined as the rationale.
* :func:`split_items` — the stated, seeded rule: items sorted by id, shuffled with
  ``random.Random(seed)``, the first ``round(holdout * n)`` held out (at least one when
  ``holdout > 0`` and there are two or more items), the rest go to the memory.
* :func:`exemplar_row` — one aggregated item as an exemplar line (``memory.exemplar``) whose
  ``image`` is a ``data:`` URL, as ``POST /v1/memories/{name}/exemplars`` takes it.
* :func:`read_judge_scores` / :func:`memory_agreement` — judge results files read as
  ``{item: score}`` and the before/after agreement on the held-out items only.

Example:
    >>> rows = [{"item": "r1", "annotator": "a1", "rating": 4, "excluded": False,
    ...          "reason": "sharp"}, {"item": "r1", "annotator": "a2", "rating": 2,
    ...          "excluded": True, "reason": None}]
    >>> aggregate(rows)["r1"]["mean"], aggregate(rows)["r1"]["reasons"]
    (4.0, ['sharp'])
    >>> split_items(["a", "b", "c", "d"], holdout=0.5, seed=0)
    (['b', 'd'], ['a', 'c'])
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from eval.campaigns.agreement import judge_vs_humans
from judge.io.data_urls import data_url
from memory.io.jsonl import read_jsonl, where

MIME = {"png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "webp": "image/webp"}


def aggregate(rows: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Kept ratings per item: ``{item: {"mean", "sd", "n", "reasons", "row"}}`` (``row`` is
    the item's first kept rating row, for its image, prompt and model)."""
    per: dict[str, dict[str, Any]] = {}
    for r in rows:
        if r.get("excluded"):
            continue
        slot = per.setdefault(r["item"], {"ratings": [], "reasons": [], "row": dict(r)})
        slot["ratings"].append(float(r["rating"]))
        reason = (r.get("reason") or "").strip()
        if reason:
            slot["reasons"].append(reason)
    out = {}
    for item, slot in per.items():
        x = slot["ratings"]
        mean = sum(x) / len(x)
        sd = math.sqrt(sum((v - mean) ** 2 for v in x) / len(x))
        out[item] = {"mean": round(mean, 4), "sd": round(sd, 4), "n": len(x),
                     "reasons": slot["reasons"], "row": slot["row"]}  # fmt: skip
    return out


def split_items(items: Iterable[str], *, holdout: float, seed: int) -> tuple[list[str], list[str]]:
    """``(memory, held_out)`` item ids by the seeded rule of the module docstring."""
    if not 0 <= holdout < 1:
        raise ValueError(f"--holdout {holdout}: give a fraction in [0, 1)")
    ids = sorted(set(items))
    random.Random(seed).shuffle(ids)
    n_out = round(holdout * len(ids))
    if holdout > 0 and len(ids) >= 2:
        n_out = min(max(n_out, 1), len(ids) - 1)
    return sorted(ids[n_out:]), sorted(ids[:n_out])


def exemplar_row(
    campaign: str, criterion: str, item: str, agg: Mapping[str, Any], image: bytes, ext: str
) -> dict[str, Any]:
    """The exemplar line for one aggregated item (image inlined as a data URL)."""
    row = agg["row"]
    url = data_url(image, MIME.get(ext.lower(), "image/png"))
    line: dict[str, Any] = {
        "id": f"{campaign}.{item}",
        "modality": "image",
        "task_brief": row.get("instruction") or "",
        "image": url,
        "scores": {criterion: agg["mean"]},
        "score_sd": {criterion: agg["sd"]},
        "score_n": {criterion: agg["n"]},
        "meta": {"campaign": campaign, "item": item, "generator": row.get("model")},
    }
    if row.get("prompt"):
        line["prompt"] = row["prompt"]
    if agg["reasons"]:
        line["rationales"] = {criterion: " | ".join(agg["reasons"])[:2000]}
    return line


def read_judge_scores(path: Path, criterion: str) -> dict[str, float]:
    """``{item: score}`` from a JSONL file of ``{"item", "score"}`` lines or of judge results
    (``submission_id`` = the item id, the score under ``subjective.image.<criterion>`` or
    ``subjective.prompt.<criterion>``, or ``criteria.<criterion>`` for edits). Unscored
    lines are skipped."""
    out: dict[str, float] = {}
    for n, line in read_jsonl(path, objects=True):
        if "item" in line:
            item, score = line["item"], line.get("score")
        elif "submission_id" in line:
            item = line["submission_id"]
            subj = line.get("subjective") or {}
            cells = [(subj.get(side) or {}).get(criterion) for side in ("image", "prompt")]
            cells.append((line.get("criteria") or {}).get(criterion))
            score = next((c["score"] for c in cells if c and c.get("score") is not None), None)
        else:
            raise ValueError(f"{where(path, n)}: needs 'item' and 'score', or a judge result")
        if score is not None:
            out[str(item)] = float(score)
    return out


def memory_agreement(
    units: Mapping[str, Mapping[str, float]],
    split: Mapping[str, Any],
    before: Mapping[str, float],
    after: Mapping[str, float],
    *,
    n_boot: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """Judge–human agreement before and after the memory, on the held-out items only."""
    held = set(split["held_out"])
    on_held = {u: per for u, per in units.items() if u in held}
    return {
        "memory": split.get("memory_name"),
        "rule": split.get("rule"),
        "held_out_items": len(on_held),
        "before": judge_vs_humans(on_held, before, numeric=True, n_boot=n_boot, seed=seed),
        "after": judge_vs_humans(on_held, after, numeric=True, n_boot=n_boot, seed=seed),
    }
