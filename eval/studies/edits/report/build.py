"""Read an edit study's folder and write ``report.json``, ``report.md`` and ``plots/``.

Example::

    report = write_edit_report(Path("runs/edits"), n_boot=1000, seed=0)
    report["editors"]["demo"]["success"]   # {"rate": ..., "ci95": [...], "n": ..., ...}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from eval.studies.edits.report.campaign import write_campaign_manifest
from eval.studies.edits.report.markdown import render
from eval.studies.edits.report.stats import FAILURE_LINES, edit_stats
from eval.studies.judged import report_judge
from eval.studies.report.load import ReportError
from memory.io.atomic import write_atomic
from memory.io.jsonl import read_jsonl

DEFAULT_THRESHOLD = 4.0


def is_edit_run(folder: Path) -> bool:
    """Whether ``folder`` holds an edit study's run (its ``study.json`` says ``kind: edit``)."""
    try:
        study = json.loads((Path(folder) / "study.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(study, dict) and study.get("kind") == "edit"


def _load(folder: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    study = json.loads((folder / "study.json").read_text(encoding="utf-8"))
    path = folder / "results.jsonl"
    if not path.is_file():
        raise ReportError(f"{path}: no results yet; run `judge study run` into {folder} first")
    lines = []
    for n, line in read_jsonl(path, objects=True, error=ReportError):
        if not {"task_id", "writer", "editor"} <= set(line):
            raise ReportError(f"{path}:{n}: not a results line (task_id, writer, editor)")
        lines.append(line)
    return study, lines


def _comparisons(folder: Path) -> list[dict[str, Any]]:
    """The judge's comparisons of two edits (``comparisons.jsonl``; none when absent)."""
    path = folder / "comparisons.jsonl"
    if not path.is_file():
        return []
    out = []
    for n, line in read_jsonl(path, objects=True, error=ReportError):
        if not {"task_id", "writer", "a", "b"} <= set(line):
            raise ReportError(f"{path}:{n}: not a comparison line (task_id, writer, a, b)")
        out.append(line)
    return out


def build_edit_report(folder: Path, *, n_boot: int, seed: int) -> dict[str, Any]:
    """The report dict of ``folder`` (no files written)."""
    study, lines = _load(Path(folder))
    comparisons = _comparisons(Path(folder))
    thresholds = {x.get("threshold") for x in lines if x.get("threshold") is not None}
    options = (study.get("judge") or {}).get("options") or {}
    threshold = next(iter(thresholds), options.get("edit_success_threshold", DEFAULT_THRESHOLD))
    notes = []
    if not lines:
        notes.append("results.jsonl holds no items; nothing to aggregate")
    if any(x.get("success") is None and x.get("status") in ("scored", "partial") for x in lines):
        notes.append("some judged edits have an unscored criterion: they are not in success@τ "
                     "(counted as undecided); the criteria means use what was scored")  # fmt: skip
    stats = edit_stats(lines, n_boot=n_boot, seed=seed, comparisons=comparisons)
    if study.get("compare") and stats["pairwise"]["source"] == "pseudo":
        notes.append("the study asked the judge to compare the edits, but no comparison was "
                     "decided: the pairwise records fall back to pseudo-pairwise votes from the "
                     "pointwise scores")  # fmt: skip
    return {
        "kind": "edit",
        "study": {
            "name": study.get("name"),
            "n_items": len(lines),
            "n_tasks": len(study.get("tasks") or []),
            "writers": [w["id"] for w in study.get("writers") or []],
            "editors": [e["id"] for e in study.get("editors") or []],
            "edits_per_instruction": study.get("edits_per_instruction"),
        },
        "judge": report_judge(study),
        "threshold": threshold,
        "bootstrap": n_boot,
        "seed": seed,
        **stats,
        "failure_lines": {k: list(v) for k, v in FAILURE_LINES.items()},
        "notes": notes,
    }


def write_edit_report(folder: Path, *, n_boot: int, seed: int, plots: bool = True) -> dict:
    """Write ``report.json``, ``report.md`` and (unless off) ``plots/`` into ``folder``."""
    folder = Path(folder)
    report = build_edit_report(folder, n_boot=n_boot, seed=seed)
    study, lines = _load(folder)
    tasks_dir = Path(study.get("tasks_file") or folder).parent
    manifest = write_campaign_manifest(folder, lines, tasks_dir)
    report["campaign_manifest"] = str(manifest.relative_to(folder))
    if plots:
        from eval.studies.edits.report.plots import write_edit_plots

        paths = write_edit_plots(report, folder / "plots")
        report["plots"] = [str(p.relative_to(folder)) for p in paths]
    write_atomic(folder / "report.json", json.dumps(report, indent=2).encode())
    write_atomic(folder / "report.md", render(report).encode())
    return report
