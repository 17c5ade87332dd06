"""Human labels from the files the project already reads, as one kind of row.

Each label becomes a :class:`HumanRow`: the item id, the criterion, which field it labels
(``winner``, ``verdict`` or ``rating``), the value, the annotator and where it was read
(``FILE:LINE``). A file is JSON lines or CSV (by its suffix; others are sniffed), and each
row may be any of:

- a plain row ``{"id", "criterion", "winner" | "verdict" | "rating", "annotator"}``;
- a campaign's vote export (``prompt_id, model_a, model_b, winner, criterion, annotator``,
  ``item``): matched by ``item`` when it is a result's id, else by prompt and models;
- a campaign's rating export (``item, annotator, rating, criterion``);
- a campaign's attempts export (``item, annotator, accepted`` with ``choice`` or ``rating``):
  only accepted, non-validation answers; it names no criterion, so ``criterion`` is given;
- an ``edit-ratings`` line (``{"id", "ratings": {criterion: {rater: rating}}}``) or an
  ``expert-jsonl`` line (``{"id", "subjective": {side: {dim: {"mean", "raters"}}},
  "objective": {side: {checkpoint: bool}}}``).

Rows a campaign's quality control set aside (``excluded`` true) are skipped. Any labelled
dataset of ``judge meta-eval`` is read with :func:`dataset_rows` through its adapter.

Example:
    >>> rows = parse_rows([{"id": "s1", "criterion": "image.c1", "verdict": "yes",
    ...                     "annotator": "ann"}], "labels.jsonl")
    >>> rows[0].field, rows[0].value, rows[0].where
    ('verdict', True, 'labels.jsonl:1')
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.trust.errors import TrustError
from memory.io.jsonl import read_jsonl, where

SCALE = (1.0, 5.0)
TRUE = {"true", "yes", "pass", "passed", "1"}
FALSE = {"false", "no", "fail", "failed", "0"}


@dataclass(frozen=True)
class HumanRow:
    """One human label."""

    id: str
    criterion: str
    field: str
    value: bool | str | float
    annotator: str
    where: str
    pair: tuple[str, str, str] | None = None  # a vote's (prompt_id, model_a, model_b)


def _verdict(value: Any, at: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in TRUE or text in FALSE:
        return text in TRUE
    raise TrustError(f"{at}: field 'verdict': {value!r} is not a verdict (true/false, yes/no)")


def _winner(value: Any, at: str) -> str:
    text = str(value).strip().lower()
    if text not in ("a", "b", "tie"):
        raise TrustError(f"{at}: field 'winner': {value!r} is not a winner (a, b or tie)")
    return text


def _rating(value: Any, at: str, field: str = "rating") -> float:
    try:
        number = float(value) if not isinstance(value, bool) else math.nan
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number):
        raise TrustError(f"{at}: field {field!r}: {value!r} is not a finite number")
    if not SCALE[0] <= number <= SCALE[1]:
        raise TrustError(f"{at}: field {field!r}: {value!r} is outside the 1–5 scale")
    return number


PARSE: dict[str, Callable[[Any, str], bool | str | float]] = {
    "verdict": _verdict,
    "winner": _winner,
    "rating": _rating,
}


def _text(row: dict[str, Any], key: str, at: str) -> str:
    value = row.get(key)
    if value is None or isinstance(value, dict | list) or not str(value).strip():
        raise TrustError(f"{at}: field {key!r} is missing or empty")
    return str(value).strip()


def _excluded(row: dict[str, Any]) -> bool:
    return str(row.get("excluded", "")).strip().lower() in ("true", "1", "yes")


def _nested(row: dict[str, Any], at: str) -> Iterator[HumanRow]:
    """An edit-ratings or expert-jsonl line."""
    rid = _text(row, "id", at)
    for crit, raters in (row.get("ratings") or {}).items():
        for who, value in (raters or {}).items():
            yield HumanRow(rid, crit, "rating", _rating(value, at, f"ratings.{crit}.{who}"),
                           str(who), at)  # fmt: skip
    for side, dims in (row.get("subjective") or {}).items():
        for dim, lab in (dims or {}).items():
            raters = [r for r in (lab or {}).get("raters") or [] if r is not None]
            values = {f"r{i}": r for i, r in enumerate(raters)} or {
                "label": (lab or {}).get("mean")
            }
            for who, value in values.items():
                if value is not None:
                    field = f"subjective.{side}.{dim}"
                    yield HumanRow(rid, f"{side}.{dim}", "rating", _rating(value, at, field),
                                   who, at)  # fmt: skip
    for side, checks in (row.get("objective") or {}).items():
        for cid, value in (checks or {}).items():
            v = _verdict(value, f"{at} (objective.{side}.{cid})")
            yield HumanRow(rid, f"{side}.{cid}", "verdict", v, "label", at)


def row_labels(row: Any, at: str, criterion: str | None = None) -> list[HumanRow]:
    """The labels of one row of any supported shape (see the module)."""
    if not isinstance(row, dict):
        raise TrustError(f"{at}: expected a JSON object")
    if _excluded(row):
        return []
    if "accepted" in row and "item" in row:  # an attempts export
        if not row.get("accepted") or row.get("validation") in (True, "true"):
            return []
        if criterion is None:
            raise TrustError(
                f"{at}: a campaign's attempts name no criterion: give it (--criterion NAME), "
                "or use the campaign's votes or ratings export"
            )
        field = "winner" if "choice" in row else "rating" if "rating" in row else None
        if field is None:
            raise TrustError(f"{at}: an attempt with neither 'choice' nor 'rating' (a ranking?): "
                             "use the campaign's votes export")  # fmt: skip
        value = PARSE[field](row["choice" if field == "winner" else "rating"], at)
        return [HumanRow(_text(row, "item", at), criterion, field, value,
                         _text(row, "annotator", at), at)]  # fmt: skip
    if "ratings" in row or "subjective" in row or "objective" in row:
        return list(_nested(row, at))
    fields = [f for f in ("winner", "verdict", "rating") if f in row]
    if len(fields) != 1:
        raise TrustError(f"{at}: a label row needs exactly one of 'winner', 'verdict' or 'rating'"
                         f" (found {fields or 'none'})")  # fmt: skip
    field = fields[0]
    crit = str(row.get("criterion") or criterion or "").strip()
    if not crit:
        raise TrustError(f"{at}: field 'criterion' is missing or empty")
    who = str(row.get("annotator") or "").strip()
    value = PARSE[field](row[field], at)
    if "prompt_id" in row and "model_a" in row:  # a vote
        rid = str(row.get("item") or row.get("id") or "").strip()
        pair = (_text(row, "prompt_id", at), _text(row, "model_a", at), _text(row, "model_b", at))
        return [HumanRow(rid, crit, field, value, who, at, pair)]
    rid = str(row.get("id") or row.get("item") or "").strip()
    if not rid:
        raise TrustError(f"{at}: field 'id' is missing or empty (the result's id)")
    return [HumanRow(rid, crit, field, value, who, at)]


def parse_rows(rows: list[Any], source: str, criterion: str | None = None) -> list[HumanRow]:
    """The labels of already parsed rows (line ``n`` is ``rows[n - 1]``)."""
    return [
        lab for n, row in enumerate(rows, 1) for lab in row_labels(row, where(source, n), criterion)
    ]


def read_human(path: str | Path, criterion: str | None = None) -> list[HumanRow]:
    """Every label of a JSONL or CSV human file (see the module)."""
    path = Path(path)
    if not path.is_file():
        raise TrustError(f"{path}: no such human labels file")
    if _is_csv(path):
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            out: list[HumanRow] = []
            for row in reader:
                clean = {k.strip(): _cell(v) for k, v in row.items() if k}
                out += row_labels(clean, where(path, reader.line_num), criterion)
            return out
    lines = read_jsonl(path, error=TrustError)
    return [lab for n, row in lines for lab in row_labels(row, where(path, n), criterion)]


def _cell(value: str | None) -> str | None:
    """A CSV cell: empty as None, a spreadsheet guard (leading ``'``) removed."""
    if value is None or value == "":
        return None
    return value[1:] if value.startswith("'") else value


def _is_csv(path: Path) -> bool:
    if path.suffix.lower() == ".csv":
        return True
    if path.suffix.lower() in (".jsonl", ".json", ".ndjson"):
        return False
    with open(path, encoding="utf-8", errors="replace") as fh:
        head = fh.read(1)
    return head not in ("{", "[")


def dataset_rows(name: str, data: str | Path) -> list[HumanRow]:
    """The labels of a ``judge meta-eval`` dataset (``avt``, ``expert-jsonl``, ``csv``,
    ``votes``, ``edit-ratings``, public sets) read by its adapter: each rater where the
    dataset keeps them, else its label (``label``); a votes dataset's counts as votes."""
    from eval.datasets import get_dataset

    try:
        dataset = get_dataset(name)
        items = dataset.load(Path(data))
    except (OSError, ValueError, KeyError) as exc:
        raise TrustError(f"{data}: cannot read it as the {name} dataset ({exc})") from None
    out: list[HumanRow] = []
    for item in items:
        at = item.where or f"{data} (item {item.id})"
        for t in dataset.targets:
            crit = (
                t.dimension if t.modality in ("compare", "edit") else f"{t.modality}.{t.dimension}"
            )
            raters = item.ratings.get(t.name) or {}
            if t.modality == "compare":
                for outcome, count in raters.items():
                    out += [HumanRow(item.id, crit, "winner", outcome, f"vote-{outcome}-{i}", at)
                            for i in range(int(count))]  # fmt: skip
                continue
            values = raters or ({"label": item.labels[t.name]} if t.name in item.labels else {})
            out += [HumanRow(item.id, crit, "rating", _rating(v, at), str(who), at)
                    for who, v in values.items()]  # fmt: skip
        for side, checks in item.objective.items():
            out += [HumanRow(item.id, f"{side}.{cid}", "verdict", bool(v), "label", at)
                    for cid, v in checks.items()]  # fmt: skip
    return out
