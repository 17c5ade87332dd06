"""``judge tasks check`` and ``judge tasks checklist``: task suites from the command line.

Example:
    $ judge tasks check examples/study/tasks.jsonl
    $ judge tasks checklist my_tasks.jsonl --model openai/gpt-4o --out my_tasks.checked.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from eval.studies.suite import NOT_OBSERVABLE, SuiteError, SuiteTask, brief_sha256
from judge.domain.task import Category, Primitive

if TYPE_CHECKING:
    from judge.config import JudgeSettings


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``tasks`` verb with its ``check`` and ``checklist`` actions."""
    p = sub.add_parser("tasks", help="check task suites and generate missing checklists")
    actions = p.add_subparsers(dest="tasks_command", required=True, metavar="ACTION")
    c = actions.add_parser("check", help="validate a suite; summarise categories and primitives")
    c.add_argument("file", type=Path, help="task suite (JSONL, one task per line)")
    c.add_argument("--json", action="store_true", help="print the summary as JSON")
    c.set_defaults(handler=run_check)

    g = actions.add_parser("checklist", help="generate checklists for tasks that have none")
    g.add_argument("file", type=Path, help="task suite (JSONL)")
    g.add_argument("--model", help="litellm model string (default: JUDGE_MODEL)")
    g.add_argument("--out", type=Path, required=True, help="suite to write (may be FILE)")
    g.add_argument("--api-base", help="OpenAI-compatible endpoint (default: JUDGE_API_BASE)")
    g.add_argument("--api-key-env", help="variable holding the key (default: JUDGE_API_KEY)")
    g.add_argument(
        "--regenerate",
        action="store_true",
        help="replace earlier generated checklists too (never hand-written or reviewed ones)",
    )
    g.add_argument("--json", action="store_true", help="print the report as JSON")
    g.add_argument("--no-progress", action="store_true", help="no progress bar")
    g.set_defaults(handler=run_checklist)

    from eval.evidence.cli import register as register_evidence  # from-posts, edits, run-report

    register_evidence(actions)


def _fail(action: str, message: str) -> int:
    print(f"judge tasks {action}: {message}", file=sys.stderr)
    return 2


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


def _listing(ids: list[str]) -> str:
    return ", ".join(ids) if ids else "none"


def render_summary(s: dict) -> str:
    """The summary as a few lines of text."""
    cats = ", ".join(f"{k} {v}" for k, v in s["categories"].items())
    prims = ", ".join(f"{k} {v}" for k, v in s["primitives"].items() if v)
    lines = [
        f"{s['file']}: {s['tasks']} tasks ({cats}), {s['checkpoints']} checkpoints",
        f"primitives (tasks): {prims or 'none'}",
        f"primitives not covered: {_listing(s['primitives_missing'])}",
        f"tasks without a checklist: {_listing(s['without_checklist'])}",
        f"generated checklists not yet reviewed: {_listing(s['generated_unreviewed'])}",
    ]
    lines += [f"note: {n}" for n in s["notes"]]
    return "\n".join(lines)


def run_check(args: argparse.Namespace) -> int:
    """Validate a suite: the summary (exit 0) or every problem (exit 2)."""
    from eval.studies.suite import load_suite

    try:
        tasks = load_suite(args.file)
    except SuiteError as exc:
        if args.json:
            print(json.dumps({"file": str(args.file), "errors": exc.errors}))
        return _fail("check", f"{len(exc.errors)} problem(s):\n{exc}")
    summary = summarize(args.file, tasks)
    print(json.dumps(summary) if args.json else render_summary(summary))
    return 0


def _settings(args: argparse.Namespace) -> JudgeSettings:
    from judge.config import JudgeSettings

    overrides: dict = {"max_tokens": 4096}
    if args.model:
        overrides["model"] = args.model
    if args.api_base:
        overrides["api_base"] = args.api_base
    if args.api_key_env:
        key = os.environ.get(args.api_key_env)
        if not key:
            raise ValueError(f"--api-key-env: the variable {args.api_key_env} is not set")
        overrides["api_key"] = key
    settings = JudgeSettings(**overrides)
    if not settings.model:
        raise ValueError("no model to write checklists: pass --model (or set JUDGE_MODEL)")
    return settings


def _rebase(tasks: list[SuiteTask], src_dir: Path, out_dir: Path) -> list[SuiteTask]:
    """Target paths made relative to the output file's folder."""
    out: list[SuiteTask] = []
    for t in tasks:
        if t.target_image and not Path(t.target_image).is_absolute():
            moved = os.path.relpath((src_dir / t.target_image).resolve(), out_dir.resolve())
            t = t.model_copy(update={"target_image": Path(moved).as_posix()})
        out.append(t)
    return out


def render_report(r: dict, out: Path) -> str:
    """The checklist report as text."""
    lines = [
        f"wrote {out}: {len(r['generated'])} generated, {len(r['kept'])} kept from earlier "
        f"runs, {len(r['reviewed'])} reviewed, {len(r['hand_written'])} hand-written, "
        f"{len(r['failed'])} failed",
    ]
    if r["kept"]:
        lines.append(f"skipped (already generated; --regenerate replaces): {_listing(r['kept'])}")
    if r["stale"]:
        lines.append(
            f"stale (the brief or target changed since generation; review or --regenerate): "
            f"{_listing(r['stale'])}"
        )
    return "\n".join(lines)


def run_checklist(args: argparse.Namespace) -> int:
    """Generate the missing checklists of a suite into ``--out``."""
    from eval.studies.checklist_fill import fill_checklists
    from eval.studies.suite import load_suite, write_suite

    try:
        settings = _settings(args)
        tasks = load_suite(args.file)
    except (SuiteError, ValueError) as exc:
        return _fail("checklist", str(exc))
    previous: dict[str, SuiteTask] = {}
    if args.out.exists():
        try:
            previous = {t.id: t for t in load_suite(args.out, check_images=False)}
        except SuiteError as exc:
            return _fail(
                "checklist",
                f"--out {args.out} exists but is not a valid suite (fix or move it):\n{exc}",
            )
    filled, report = asyncio.run(
        fill_checklists(
            tasks,
            args.file.parent,
            settings,
            previous=previous,
            regenerate=args.regenerate,
            progress=not args.no_progress,
        )
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_suite(_rebase(filled, args.file.parent, args.out.parent), args.out)
    r = report.as_dict()
    print(json.dumps({"out": str(args.out), **r}) if args.json else render_report(r, args.out))
    for task_id, reason in report.failed.items():
        print(f"judge tasks checklist: {task_id}: {reason}", file=sys.stderr)
    return 1 if report.failed else 0
