"""``judge tasks checklist``: generate the missing checklists of a task suite.

Example:
    $ judge tasks checklist my_tasks.jsonl --model openai/gpt-4o --out my_tasks.checked.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

from eval.studies.suite import SuiteError, SuiteTask
from eval.tasks.check import listing
from eval.tasks.fail import fail
from eval.tasks.models import model_settings


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
        lines.append(f"skipped (already generated; --regenerate replaces): {listing(r['kept'])}")
    if r["stale"]:
        lines.append(
            f"stale (the brief or target changed since generation; review or --regenerate): "
            f"{listing(r['stale'])}"
        )
    return "\n".join(lines)


def run_checklist(args: argparse.Namespace) -> int:
    """Generate the missing checklists of a suite into ``--out``."""
    from eval.studies.checklist_fill import fill_checklists
    from eval.studies.suite import load_suite, write_suite

    try:
        settings = model_settings(args, "to write checklists")
        tasks = load_suite(args.file)
    except (SuiteError, ValueError) as exc:
        return fail("checklist", str(exc))
    previous: dict[str, SuiteTask] = {}
    if args.out.exists():
        try:
            previous = {t.id: t for t in load_suite(args.out, check_images=False)}
        except SuiteError as exc:
            return fail(
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
