"""``judge compare FILE``: judge pairwise comparisons and print ComparisonResults.

FILE is one comparison (JSON object, docs/design.md#comparison; ``"mode": "edit_compare"`` for two
edits of one source, docs/edit.md#two-edits-compared), a JSON list of them, or JSONL. One
comparison prints one JSON document; several print JSONL (one result per line, input
order), run concurrently with a progress bar on stderr. ``--votes`` also writes the decided
criteria as vote rows for ``judge leaderboard`` (CSV when the name ends in ``.csv``).
Relative image paths resolve against FILE's folder. Exit 0 when every comparison was
judged (scored, partial or blocked); 2 for invalid input (the message names the item and
field); 3 when no judge model is configured for ``--backend llm``.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import sys
from pathlib import Path
from typing import Any

from judge import event_loop
from judge.cli.judging import (
    ERRORS,
    add_confidence_and_trust_flags,
    add_model_flags,
    exit_code,
    judge_for,
)
from judge.errors import InputError
from memory.io.jsonl import JsonlError, parse_jsonl, where

COMPARISON_MODES = ("compare", "edit_compare")
"""The modes ``judge compare`` runs: two images of one prompt, or two edits of one source."""
VOTE_FIELDS = ["prompt_id", "model_a", "model_b", "winner", "criterion", "annotator"]
MAX_FILE_BYTES = 256 * 1024 * 1024


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``compare`` verb."""
    p = sub.add_parser(
        "compare",
        help="judge pairwise comparisons (both orders asked) and print ComparisonResults",
        description=(__doc__ or "").replace("``", ""),  # the docstring, without reST quotes
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "file", type=Path, help="comparison JSON, JSON list or JSONL (docs/design.md#comparison)"
    )
    p.add_argument("--backend", choices=["auto", "llm", "local"], help="as for `judge score`")
    add_model_flags(p, "comma-separated judge models; answers by majority")
    p.add_argument(
        "--allow-tie",
        action="store_true",
        help="let the judge answer 'tie' (default: it must pick an image)",
    )
    p.add_argument(
        "--sequential-safety", action="store_true", help="screen before judging, not alongside"
    )
    add_confidence_and_trust_flags(p)
    p.add_argument("--no-cache", action="store_true", help="do not reuse cached answers")
    p.add_argument("--timeout", type=float, help="per-call timeout in seconds")
    p.add_argument(
        "--concurrency", type=int, default=8, help="comparisons in flight at once (default 8)"
    )
    p.add_argument("--out", type=Path, help="write results (JSONL) here instead of stdout")
    p.add_argument("--votes", type=Path, help="also write vote rows (JSONL, or CSV by suffix)")
    p.add_argument("--compact", action="store_true", help="one-line JSON for a single result")
    p.set_defaults(handler=run)


def overrides(args: argparse.Namespace) -> dict[str, Any]:
    """This verb's own flags that were given, as settings overrides (the flags every judging
    verb takes are added by :func:`judge.cli.judging.judge_for`)."""
    return {"compare_allow_tie": True} if args.allow_tie else {}


def read_comparisons(path: Path) -> list[Any]:
    """The comparisons in a JSON object, JSON list or JSONL file; errors name the line."""
    from judge.validation import read_text_file

    text = read_text_file(path, MAX_FILE_BYTES)
    try:
        data = json.loads(text)
        return data if isinstance(data, list) else [data]
    except json.JSONDecodeError:
        pass
    try:
        items = [item for _, item in parse_jsonl(text, path)]
    except JsonlError as exc:
        raise InputError(where(exc.source, exc.line), exc.problem) from None
    if not items:
        raise InputError(str(path), "no comparison in the file")
    return items


def comparison_mode(item: Any) -> str:
    """The item's ``"mode"`` (``compare`` when absent); anything but a comparison mode is an
    error naming the field."""
    mode = item.get("mode", "compare") if isinstance(item, dict) else "compare"
    if mode not in COMPARISON_MODES:
        raise InputError("mode", f"{mode!r} is not a comparison mode; use one of "
                         f"{list(COMPARISON_MODES)} (judge score runs the others)")  # fmt: skip
    return mode


def write_votes(path: Path, rows: list[dict[str, Any]]) -> None:
    """Vote rows as CSV (``.csv``) or JSONL."""
    with path.open("w", encoding="utf-8", newline="") as fh:
        if path.suffix.lower() == ".csv":
            writer = csv.DictWriter(fh, fieldnames=VOTE_FIELDS)
            writer.writeheader()
            writer.writerows(rows)
        else:
            fh.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


async def _judge_all(
    judge: Any, items: list[Any], base_dir: Path, concurrency: int
) -> list[dict[str, Any]]:
    from tqdm import tqdm

    gate = asyncio.Semaphore(max(1, concurrency))
    out: list[dict[str, Any]] = [{} for _ in items]
    bar = tqdm(
        total=len(items), desc="compare", unit="cmp", disable=len(items) < 2, file=sys.stderr
    )

    async def one(i: int, item: Any) -> None:
        async with gate:
            try:
                mode = comparison_mode(item)
                result = await judge.arun_request(item, mode=mode, base_dir=base_dir)
                out[i] = {"index": i, "result": result}
            except InputError as exc:
                field = f"items[{i}].{exc.field}" if len(items) > 1 else exc.field
                out[i] = {"index": i, "error": {"field": field, "message": exc.message}}
            bar.update(1)

    await asyncio.gather(*(one(i, item) for i, item in enumerate(items)))
    bar.close()
    return out


def run(args: argparse.Namespace) -> int:
    """Judge the file's comparisons; errors go to stderr with a non-zero exit code."""
    from judge.cli.main import EXIT_INPUT
    from judge.config import JudgeSettings

    # outside the try: a bad environment variable reaches judge.cli.main, which names it
    settings = JudgeSettings()
    try:
        items = read_comparisons(args.file)
        judge = judge_for(settings, args, overrides(args))
        outcomes = event_loop.run(
            _judge_all(judge, items, args.file.resolve().parent, args.concurrency)
        )
    except ERRORS as exc:
        return exit_code(exc)
    errors = [o["error"] for o in outcomes if "error" in o]
    for err in errors:
        print(f"judge: invalid input: {err['field']}: {err['message']}", file=sys.stderr)
    results = [o["result"] for o in outcomes if "result" in o]
    dumps = [r.model_dump(mode="json", exclude_none=True) for r in results]
    if len(items) == 1 and dumps and not args.out:
        print(json.dumps(dumps[0], ensure_ascii=False, indent=None if args.compact else 2))
    else:
        lines = [json.dumps(d, ensure_ascii=False) + "\n" for d in dumps]
        if args.out:
            args.out.write_text("".join(lines), encoding="utf-8")
        else:
            sys.stdout.writelines(lines)
    if args.votes:
        write_votes(args.votes, [v for r in results for v in r.votes()])
    return EXIT_INPUT if errors else 0
