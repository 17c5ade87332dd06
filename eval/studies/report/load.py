"""Read a study folder for the report: ``results.jsonl`` (required), ``study.json`` (optional).

Every line of ``results.jsonl`` is one (task, prompter, backend) item (the runner's output). The
reader checks the fields the report needs and names ``file:line`` in every error. A last line
that is not valid JSON and has no line end is a write cut short by a crash (a *torn* line): it
is skipped and the report says so. When the same (task, prompter, backend) appears twice (a
resumed run that wrote an item again) the later line wins, also with a note.

``study.json`` only adds metadata (study name, prompter kinds and conditions, the order of
prompters and backends); everything else comes from the results.

Example:
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "results.jsonl").write_text(
    ...     '{"task_id": "t1", "category": "OE", "prompter": "p", "backend": "b", '
    ...     '"status": "blocked", "reason": "nsfw"}\\n{"task_id": "t2", "cat')
    >>> study = load_study(d)
    >>> len(study.items), study.notes[0].startswith("results.jsonl:2: torn last line")
    (1, True)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval.studies.judged import report_judge
from memory.io.jsonl import read_jsonl, where

CATEGORIES = ("OE", "CO", "IM")
AGGREGATED = ("scored", "partial")
EXCLUDED = ("prompt_failed", "generation_failed", "judge_failed", "blocked")
STATUSES = AGGREGATED + EXCLUDED
MEASURES = (
    "subjective_prompt",
    "subjective_image",
    "objective_prompt_rate",
    "objective_image_rate",
)
RANGES = {
    "subjective_prompt": (1.0, 5.0),
    "subjective_image": (1.0, 5.0),
    "objective_prompt_rate": (0.0, 100.0),
    "objective_image_rate": (0.0, 100.0),
}


class ReportError(ValueError):
    """A study directory the report cannot read; the message names file, line and field."""


@dataclass
class Item:
    """One results line, reduced to what the report uses."""

    task_id: str
    category: str
    prompter: str
    backend: str
    status: str
    reason: str | None
    kind: str | None
    condition: str | None
    values: dict[str, float | None]  # MEASURES -> value (None: unscored)
    checks: list[dict[str, Any]]
    line: int


@dataclass
class Study:
    """The items of a study plus its metadata."""

    items: list[Item]
    name: str | None = None
    prompters: dict[str, dict[str, str | None]] = field(default_factory=dict)  # id -> kind, cond
    backends: list[str] = field(default_factory=list)
    n_lines: int = 0
    notes: list[str] = field(default_factory=list)
    judge: dict[str, Any] | None = None  # who judged (eval.studies.judged)


def _num(x: Any, where: str, key: str) -> float | None:
    if x is None:
        return None
    if isinstance(x, bool) or not isinstance(x, int | float):
        raise ReportError(f"{where}: summary.{key} must be a number or null, not {x!r}")
    lo, hi = RANGES[key]
    if not lo <= x <= hi:
        raise ReportError(f"{where}: summary.{key} = {x} is outside {lo:g}–{hi:g}")
    return float(x)


def _text(row: dict, key: str, where: str) -> str:
    val = row.get(key)
    if not isinstance(val, str) or not val.strip():
        raise ReportError(f"{where}: field {key!r} is missing or not a non-empty string")
    return val


def parse_item(row: Any, where: str, line: int) -> Item:
    """One results line as an :class:`Item` (raises :class:`ReportError` naming ``where``)."""
    if not isinstance(row, dict):
        raise ReportError(f"{where}: a results line must be a JSON object")
    status = _text(row, "status", where)
    if status not in STATUSES:
        raise ReportError(f"{where}: status {status!r} is not one of {', '.join(STATUSES)}")
    category = _text(row, "category", where)
    if category not in CATEGORIES:
        raise ReportError(f"{where}: category {category!r} is not one of OE, CO, IM")
    summary = row.get("summary")
    if status in AGGREGATED and summary is None:
        raise ReportError(f"{where}: status {status!r} needs a 'summary' object")
    summary = {} if summary is None else summary
    if not isinstance(summary, dict):
        raise ReportError(f"{where}: field 'summary' must be an object")
    checks = summary.get("checks") or []
    if not isinstance(checks, list) or not all(isinstance(c, dict) for c in checks):
        raise ReportError(f"{where}: summary.checks must be a list of objects")
    reason = row.get("reason")
    return Item(
        task_id=_text(row, "task_id", where),
        category=category,
        prompter=_text(row, "prompter", where),
        backend=_text(row, "backend", where),
        status=status,
        reason=str(reason) if reason not in (None, "") else None,
        kind=row.get("prompter_kind") or None,
        condition=row.get("condition") or None,
        values={k: _num(summary.get(k), where, k) for k in MEASURES},
        checks=checks,
        line=line,
    )


def read_results(path: Path) -> tuple[list[Item], int, list[str]]:
    """Items of a results file (later duplicates win), the number of lines, and notes."""
    if not path.is_file():
        raise ReportError(f"{path}: no results file; run `judge study run` into this folder first")
    read = read_jsonl(path, torn_tail=True, error=ReportError)
    notes: list[str] = []
    if read.torn is not None:
        cut = "torn last line skipped (no line end; a run cut short)"
        notes.append(f"{where(path.name, read.torn)}: {cut}")
    found: dict[tuple[str, str, str], Item] = {}
    duplicates = 0
    for n, row in read:
        item = parse_item(row, where(path, n), n)
        key = (item.task_id, item.prompter, item.backend)
        duplicates += key in found
        found[key] = item
    if duplicates:
        notes.append(f"{duplicates} repeated (task, prompter, backend) lines: the later one kept")
    return list(found.values()), len(read) + (read.torn is not None), notes


def read_meta(path: Path) -> dict[str, Any]:
    """``study.json`` as a dict ({} when absent); unreadable files are an error."""
    if not path.is_file():
        return {}
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ReportError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    if not isinstance(meta, dict):
        raise ReportError(f"{path}: expected a JSON object")
    return meta


def load_study(folder: str | Path) -> Study:
    """Items and metadata of a study output folder."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ReportError(f"{folder}: no such study folder")
    items, n_lines, notes = read_results(folder / "results.jsonl")
    meta = read_meta(folder / "study.json")
    given = meta.get("study")
    study_part = given if isinstance(given, dict) else {}
    prompters: dict[str, dict[str, str | None]] = {}
    for p in meta.get("prompters") or []:
        if isinstance(p, dict) and p.get("id"):
            prompters[str(p["id"])] = {"kind": p.get("kind"), "condition": p.get("condition")}
    for it in items:
        info = prompters.setdefault(it.prompter, {"kind": None, "condition": None})
        info["kind"] = info["kind"] or it.kind
        info["condition"] = info["condition"] or it.condition
    backends = [str(b["id"]) for b in meta.get("backends") or [] if isinstance(b, dict)]
    backends += sorted({it.backend for it in items} - set(backends))
    seen = {it.prompter for it in items}
    seen_b = {it.backend for it in items}
    return Study(
        items=items,
        name=study_part.get("name") or meta.get("name"),
        prompters={k: v for k, v in prompters.items() if k in seen},
        backends=[b for b in backends if b in seen_b],
        n_lines=n_lines,
        notes=notes,
        judge=report_judge(meta),
    )
