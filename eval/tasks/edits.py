"""``judge tasks edits``: edit instructions for a folder of images, or imported from a CSV.

Example:
    $ judge tasks edits photos/ --out edits.jsonl --model openai/gpt-4o
    $ judge tasks edits --from-csv mine.csv --out edits.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from eval.tasks.fail import fail
from eval.tasks.models import model_settings
from memory.io.atomic import write_atomic


def _write(tasks: list[dict], args: argparse.Namespace) -> None:
    body = "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in tasks)
    write_atomic(args.out, body.encode())


def run_edits(args: argparse.Namespace) -> int:
    """Generate (or import) edit tasks into ``--out``."""
    from eval.edit_tasks.cards import CardError
    from eval.edit_tasks.generate import generate
    from eval.edit_tasks.importer import ImportError_, import_csv, read_categories

    try:
        if args.from_csv:
            tasks = import_csv(args.from_csv, args.out, args.types)
            _write(tasks, args)
            print(f"wrote {args.out}: {len(tasks)} imported edit tasks")
            return 0
        if args.images is None:
            return fail("edits", "give a folder of images (or --from-csv FILE)")
        cats = read_categories(args.categories) if args.categories else None
        settings = model_settings(args)
        tasks, report = asyncio.run(generate(args.images, args.out, settings,
                                             types_dir=args.types, categories=cats,
                                             progress=not args.no_progress))
    except (ImportError_, CardError, ValueError) as exc:
        return fail("edits", str(exc))
    _write(tasks, args)
    r = report.as_dict()
    if args.json:
        print(json.dumps({"out": str(args.out), **r}))
    else:
        print(f"wrote {args.out}: {r['written']} edit tasks for {r['images']} images "
              f"({len(r['duplicates'])} duplicates dropped, {len(r['rejected'])} rejected "
              f"by the check, {len(r['failed'])} images failed)")
    for name, why in r["failed"].items():
        print(f"judge tasks edits: {name}: {why}", file=sys.stderr)
    return 1 if r["failed"] else 0
