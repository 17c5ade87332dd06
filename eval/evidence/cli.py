"""``judge tasks from-posts``, ``judge tasks edits`` and ``judge tasks run-report``.

:func:`register` adds the three actions to the ``judge tasks`` group's sub-parsers (see
:mod:`eval.studies.tasks_cli`).

Example:
    $ judge tasks from-posts export/posts.jsonl --out bench --model openai/gpt-4o
    $ judge tasks edits photos/ --out edits.jsonl --model openai/gpt-4o
    $ judge tasks run-report judged.jsonl --out run --human-rankings humans.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judge.config import JudgeSettings


def _model_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", help="litellm model string (default: JUDGE_MODEL)")
    p.add_argument("--api-base", help="OpenAI-compatible endpoint (default: JUDGE_API_BASE)")
    p.add_argument("--api-key-env", help="variable holding the key (default: JUDGE_API_KEY)")
    p.add_argument("--concurrency", type=int, default=16, help="model calls in flight at most")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def register(actions: argparse._SubParsersAction) -> None:
    """Add ``from-posts``, ``edits`` and ``run-report`` to the ``tasks`` group."""
    p = actions.add_parser("from-posts", help="build task suites from a posts export")
    p.add_argument("posts", type=Path, help="posts export (JSONL, one post a line)")
    p.add_argument("--out", type=Path, required=True, help="output folder")
    p.add_argument("--keywords", type=Path, help="keyword windows (TOML); default: packaged")
    p.add_argument("--max-samples", type=int, help="cap on each suite (t2i, i2i)")
    p.add_argument("--threshold", type=int, choices=range(1, 6), help="relevance grade to keep")
    p.add_argument("--allow-urls", action="store_true",
                   help="fetch image URLs (through the hostile-URL fetcher)")
    p.add_argument("--no-shift", action="store_true", help="skip the shift metrics")
    _model_options(p)
    p.set_defaults(handler=run_from_posts)

    e = actions.add_parser("edits", help="write edit instructions for a folder of images")
    e.add_argument("images", type=Path, nargs="?", help="folder of source images")
    e.add_argument("--out", type=Path, required=True, help="edit tasks to write (JSONL)")
    e.add_argument("--types", type=Path, help="folder of your own category cards (TOML)")
    e.add_argument("--categories", type=Path, help="CSV image,category (skips classification)")
    e.add_argument("--from-csv", type=Path,
                   help="import hand-written instructions (CSV image,instruction,category,"
                        "edit_type) instead of generating")
    _model_options(e)
    e.set_defaults(handler=run_edits)

    r = actions.add_parser("run-report", help="win rates and rank agreement of a suite's run")
    r.add_argument("results", type=Path, nargs="+",
                   help="judged outputs (JSONL: prompt_id, model, judge, result|score)")
    r.add_argument("--out", type=Path, required=True, help="output folder")
    r.add_argument("--human-rankings", type=Path, help="JSONL {prompt_id?, ranking: [models]}")
    r.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples")
    r.add_argument("--metric", default="auto", help="pseudo-pairwise metric (default: auto)")
    r.add_argument("--suite-dir", type=Path, help="from-posts output: add its failures and "
                   "shift metrics to the report")
    r.add_argument("--json", action="store_true", help="print the report as JSON")
    r.set_defaults(handler=run_report_cmd)


def _fail(action: str, message: str) -> int:
    print(f"judge tasks {action}: {message}", file=sys.stderr)
    return 2


def settings_from(args: argparse.Namespace) -> JudgeSettings:
    """Judge settings from the command's model options (the model is required)."""
    from eval.studies.tasks_cli import _settings

    try:  # model, endpoint and key as `judge tasks checklist` reads them
        settings = _settings(args)
    except ValueError as exc:
        raise ValueError(str(exc).replace("no model to write checklists", "no model")) from None
    return settings.model_copy(update={"llm_concurrency": max(1, args.concurrency)})


def run_from_posts(args: argparse.Namespace) -> int:
    """Build the suites; exit 0 (1 when some lines were malformed, 2 on a usage error)."""
    from eval.evidence.keywords import KeywordFileError
    from eval.evidence.pipeline import Options, run_pipeline

    if not args.posts.is_file():
        return _fail("from-posts", f"{args.posts}: no such file; give the export's JSONL file")
    try:
        settings = settings_from(args)
        opts = Options(out=args.out, keywords=args.keywords, max_samples=args.max_samples,
                       allow_urls=args.allow_urls, threshold=args.threshold,
                       progress=not args.no_progress, shift=not args.no_shift)
        report = asyncio.run(run_pipeline(args.posts, settings, opts))
    except (ValueError, KeywordFileError) as exc:
        return _fail("from-posts", str(exc))
    for err in report["errors"]:
        print(f"{err['line']}: {err['field']}: {err['problem']}", file=sys.stderr)
    if args.json:
        print(json.dumps(report))
    else:
        st, su = report["stages"], report["suites"]
        print(" → ".join(f"{k} {v}" for k, v in st.items()))
        print(f"wrote {args.out}: suite.t2i.jsonl ({su['t2i']}), suite.i2i.jsonl ({su['i2i']}), "
              f"analysis.jsonl ({su['analysis']}), report.json")
        top = ", ".join(f"{k} {v}" for k, v in list(report["failures"].items())[:8])
        print(f"failure keywords: {top or 'none'}")
    return 1 if report["errors"] else 0


def run_edits(args: argparse.Namespace) -> int:
    """Write edit tasks (generated, or imported from a CSV)."""
    from eval.edit_tasks.cli import run as run_edit_tasks

    return run_edit_tasks(args)


def run_report_cmd(args: argparse.Namespace) -> int:
    """Win rates (bootstrap CIs) and Kendall's tau_b against human rankings."""
    from eval.evidence.run_report import RunReportError, build_run_report

    try:
        report = build_run_report(args.results, args.out, human=args.human_rankings,
                                  n_boot=args.bootstrap, metric=args.metric,
                                  suite_dir=args.suite_dir)
    except RunReportError as exc:
        return _fail("run-report", str(exc))
    if args.json:
        print(json.dumps(report))
    else:
        for split, board in report["leaderboards"].items():
            rows = ", ".join(f"{m['model']} {m['score']} {m['ci95']}" for m in board["models"])
            print(f"{split}: win rate % (95% CI): {rows}")
        if report.get("kendall_tau_b"):
            print(f"Kendall tau_b vs humans: {report['kendall_tau_b']}")
        print(f"wrote {args.out / 'run_report.json'}")
    return 0
