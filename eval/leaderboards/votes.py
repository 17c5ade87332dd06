"""Pairwise votes: read them from CSV / JSONL (plain votes or ComparisonResults), write them back.

A vote says which of two models won one prompt on one criterion::

    prompt_id,model_a,model_b,winner,criterion,annotator
    p1,flux,sd3,a,preference,rater-7

``winner`` is ``a``, ``b`` or ``tie`` (case-insensitive); ``annotator`` is optional; rows
with ``excluded`` true (labels a campaign's quality control set aside) are skipped. A JSONL file
holds one such object per line, or ComparisonResults (docs/design.md#comparison): every
criterion with a winner becomes one vote, its prompt id being the row's ``prompt_id`` when
present, else its ``comparison_id``; a batch's results lines (``{"index", "result":
ComparisonResult}``) are read the same way. Blocked results and criteria without a winner
are skipped.

Bad rows raise :class:`VotesError` naming ``file:line`` and the field.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "v.csv"
    >>> _ = p.write_text("prompt_id,model_a,model_b,winner,criterion\\np1,x,y,A,pref\\n")
    >>> read_votes(p)[0]
    Vote(prompt_id='p1', model_a='x', model_b='y', winner='a', criterion='pref', annotator=None)
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeGuard

from memory.io.jsonl import read_jsonl

WINNERS = ("a", "b", "tie")
COLUMNS = ("prompt_id", "model_a", "model_b", "winner", "criterion")
OPTIONAL = ("annotator",)


def excluded(row: dict[str, Any]) -> bool:
    """Whether a row is marked ``excluded`` (a campaign export keeps such rows, flagged)."""
    return row.get("excluded") in (True, "true", "True", "1")


class VotesError(ValueError):
    """A votes file that cannot be read; the message names file, line and field."""


@dataclass(frozen=True, slots=True)
class Vote:
    """One pairwise judgment of ``model_a`` against ``model_b``."""

    prompt_id: str
    model_a: str
    model_b: str
    winner: str  # "a" | "b" | "tie"
    criterion: str
    annotator: str | None = None

    @property
    def winner_model(self) -> str | None:
        """The winning model's name, None for a tie."""
        return {"a": self.model_a, "b": self.model_b}.get(self.winner)


def _field(row: dict[str, Any], col: str, where: str) -> str:
    raw = row.get(col)
    val = raw.strip() if isinstance(raw, str) else "" if raw is None else str(raw).strip()
    if not val:
        raise VotesError(f"{where}: field {col!r} is missing or empty")
    return val


def _clean(x: Any) -> TypeGuard[str]:
    return type(x) is str and x != "" and x[0] != " " and x[-1] != " "


def make_vote(row: dict[str, Any], where: str) -> Vote:
    """A validated vote from a mapping; ``where`` (``file:line``) prefixes any error."""
    p, a, b, w, c = (row.get(k) for k in COLUMNS)
    if w in WINNERS and a != b and _clean(p) and _clean(a) and _clean(b) and _clean(c):
        ann = row.get("annotator")  # the common, well-formed case, checked cheaply
        return Vote(
            p, a, b, w, c, ann if ann is None or _clean(ann) else (str(ann).strip() or None)
        )
    prompt_id, model_a, model_b, winner, criterion = (_field(row, c, where) for c in COLUMNS)
    low = winner.lower()
    if low not in WINNERS:
        raise VotesError(f"{where}: field 'winner' has unknown value {winner!r} (use a, b or tie)")
    if model_a == model_b:
        raise VotesError(f"{where}: field 'model_b': model {model_a!r} is named on both sides")
    annotator = row.get("annotator")
    if annotator is not None:
        annotator = str(annotator).strip() or None
    return Vote(prompt_id, model_a, model_b, low, criterion, annotator)


def comparison_votes(row: dict[str, Any], where: str) -> list[Vote]:
    """The votes of one ComparisonResult (one per criterion that has a winner)."""
    if row.get("status") == "blocked":
        return []
    models = row.get("models")
    if not isinstance(models, dict):
        raise VotesError(f"{where}: field 'models' must be an object with 'a' and 'b'")
    criteria = row.get("criteria")
    if not isinstance(criteria, dict):
        raise VotesError(f"{where}: field 'criteria' must be an object of criterion verdicts")
    prompt_id = row.get("prompt_id") or row.get("comparison_id")
    out = []
    for name, verdict in criteria.items():
        winner = (verdict or {}).get("winner")
        if winner is None:
            continue  # unscored criterion
        base = {"prompt_id": prompt_id, "model_a": models.get("a"), "model_b": models.get("b")}
        vote = make_vote(
            {**base, "winner": winner, "criterion": name, "annotator": row.get("judge")},
            f"{where} (criteria.{name})",
        )
        out.append(vote)
    return out


def _parse_lines(path: Path) -> list[tuple[int, Any]]:
    """(line number, parsed value) of every non-blank line; one parser call when all parse."""
    numbered = [
        (n, line)
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if line.strip()
    ]
    try:
        values = json.loads("[" + ",".join(line for _, line in numbered) + "]")
        if len(values) == len(numbered):
            return [(n, v) for (n, _), v in zip(numbered, values, strict=True)]
    except json.JSONDecodeError:
        pass
    return list(read_jsonl(path, error=VotesError))  # something is off: it says where


def row_votes(row: Any, where: str) -> list[Vote]:
    """The votes of one row: a vote row, or a ComparisonResult (one vote per decided
    criterion)."""
    if not isinstance(row, dict):
        raise VotesError(f"{where}: expected a JSON object")
    inner = row.get("result")
    if isinstance(inner, dict) and ("criteria" in inner or "comparison_id" in inner):
        row = inner  # a batch results line: {"index", "result": ComparisonResult}
    if "criteria" in row or "comparison_id" in row:
        return comparison_votes(row, where)
    return [make_vote(row, where)]


def _jsonl(path: Path, skipped: list[int]) -> Iterator[Vote]:
    for n, row in _parse_lines(path):
        if isinstance(row, dict) and excluded(row):
            skipped[0] += 1
            continue
        yield from row_votes(row, f"{path}:{n}")


def _csv(path: Path, skipped: list[int]) -> Iterator[Vote]:
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        header = [h.strip() for h in reader.fieldnames or []]
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            raise VotesError(
                f"{path}:1: missing column {missing[0]!r} (the header has {header}; "
                f"votes need {list(COLUMNS)} and optionally 'annotator')"
            )
        reader.fieldnames = header
        for row in reader:
            if excluded(row):
                skipped[0] += 1
            else:
                yield make_vote(row, f"{path}:{reader.line_num}")


def read_votes(path: str | Path) -> list[Vote]:
    """All votes of a ``.csv`` or ``.jsonl`` file (other suffixes: sniffed from the content)."""
    path = Path(path)
    if not path.is_file():
        raise VotesError(f"{path}: no such votes file")
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".jsonl", ".json", ".ndjson"):
        with open(path, encoding="utf-8") as fh:
            head = fh.read(512).lstrip()
        suffix = ".jsonl" if head.startswith("{") else ".csv"
    skipped = [0]  # rows marked excluded
    votes = list(_csv(path, skipped) if suffix == ".csv" else _jsonl(path, skipped))
    if not votes and skipped[0]:
        raise VotesError(
            f"{path}: no votes to rank: all {skipped[0]} rows are marked excluded (a campaign's "
            "quality control set them aside; the report says why)"
        )
    if not votes:
        raise VotesError(f"{path}: no votes found")
    return votes


def write_votes(votes: Iterable[Vote], path: str | Path) -> Path:
    """Write votes as CSV (``.csv``) or JSON lines (anything else)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fields = [*COLUMNS, *OPTIONAL]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        if path.suffix.lower() == ".csv":
            writer = csv.DictWriter(fh, fieldnames=fields)
            writer.writeheader()
            for v in votes:
                writer.writerow({k: ("" if x is None else x) for k, x in asdict(v).items()})
        else:
            for v in votes:
                row = {k: x for k, x in asdict(v).items() if x is not None}
                fh.write(json.dumps(row) + "\n")
    return path


def majority(outcomes: Iterable[str]) -> str | None:
    """The outcome (``a``, ``b`` or ``tie``) given by the most voters; a shared top count
    (a split such as 1 a / 1 b, or 1 a / 1 b / 1 tie) is a ``tie``; no outcomes gives None.

    >>> majority(["a", "a", "b"]), majority(["a", "b"]), majority(["a", "tie", "tie"])
    ('a', 'tie', 'tie')
    """
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o] = counts.get(o, 0) + 1
    if not counts:
        return None
    top = max(counts.values())
    leaders = [o for o, c in counts.items() if c == top]
    return leaders[0] if len(leaders) == 1 else "tie"
