"""``judge tasks check``: validate a task suite and summarise what it covers.

Example:
    $ judge tasks check examples/study/tasks.jsonl
    $ judge tasks check my_tasks.jsonl --json
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from eval.studies.suite import NOT_OBSERVABLE, SuiteError, SuiteTask, brief_sha256, load_suite
from eval.tasks.fail import fail
from judge.domain.task import Category, Primitive


def summarize(path: Path, tasks: list[SuiteTask]) -> dict:
    """Counts per category and primitive, checklist state and notes worth a look."""
    per_primitive = Counter(p.value for t in tasks for p in t.tags.primitives)
    notes: list[str] = []
    for t in tasks:
        checked = {cp.primitive for cp in t.checklist}
        if t.category == Category.IM:
            hidden = sorted(p.value for p in (set(t.tags.primitives) | checked) & NOT_OBSERVABLE)
            if hidden:
                notes.append(f"{t.id}: an IM target image cannot show {hidden}")
        unchecked = sorted(p.value for p in set(t.tags.primitives) - checked)
        if t.checklist and unchecked:
            notes.append(f"{t.id}: tagged {unchecked} but no checkpoint checks them")
        src = t.checklist_source
        if src is not None and src.brief_sha256 != brief_sha256(t):
            notes.append(f"{t.id}: the brief changed since its checklist was generated")
    return {
        "file": str(path),
        "tasks": len(tasks),
        "categories": {c.value: sum(t.category == c for t in tasks) for c in Category},
        "primitives": {p.value: per_primitive.get(p.value, 0) for p in Primitive},
        "primitives_missing": [p.value for p in Primitive if not per_primitive.get(p.value)],
        "checkpoints": sum(len(t.checklist) for t in tasks),
        "without_checklist": [t.id for t in tasks if not t.checklist],
        "generated_unreviewed": [
            t.id for t in tasks if t.checklist_source and not t.checklist_source.reviewed
        ],
        "notes": notes,
    }


def listing(ids: list[str]) -> str:
    return ", ".join(ids) if ids else "none"


def render_summary(s: dict) -> str:
    """The summary as a few lines of text."""
    cats = ", ".join(f"{k} {v}" for k, v in s["categories"].items())
    prims = ", ".join(f"{k} {v}" for k, v in s["primitives"].items() if v)
    lines = [
        f"{s['file']}: {s['tasks']} tasks ({cats}), {s['checkpoints']} checkpoints",
        f"primitives (tasks): {prims or 'none'}",
        f"primitives not covered: {listing(s['primitives_missing'])}",
        f"tasks without a checklist: {listing(s['without_checklist'])}",
        f"generated checklists not yet reviewed: {listing(s['generated_unreviewed'])}",
    ]
    lines += [f"note: {n}" for n in s["notes"]]
    return "\n".join(lines)


def run_check(args: argparse.Namespace) -> int:
    """Validate a suite: the summary (exit 0) or every problem (exit 2)."""
    try:
        tasks = load_suite(args.file)
    except SuiteError as exc:
        if args.json:
            print(json.dumps({"file": str(args.file), "errors": exc.errors}))
        return fail("check", f"{len(exc.errors)} problem(s):\n{exc}")
    summary = summarize(args.file, tasks)
    print(json.dumps(summary) if args.json else render_summary(summary))
    return 0
