"""``judge tasks from-posts``: task suites (t2i, i2i) and a report from a posts export.

Example:
    $ judge tasks from-posts export/posts.jsonl --out bench --model openai/gpt-4o

Exit codes: 0 done, 1 some lines were malformed (reported and skipped), 2 a usage error,
3 some model calls failed (their answers are missing: fix the model or key and run again; the
journal replays every answer already paid for).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from eval.tasks.fail import fail
from eval.tasks.models import model_settings

EXIT_MALFORMED = 1
EXIT_CALLS_FAILED = 3


def run_from_posts(args: argparse.Namespace) -> int:
    """Build the suites; exit 0 (1 when some lines were malformed, 2 on a usage error, 3
    when model calls failed)."""
    from eval.evidence.keywords import KeywordFileError
    from eval.evidence.pipeline import Options, run_pipeline

    if not args.posts.is_file():
        return fail("from-posts", f"{args.posts}: no such file; give the export's JSONL file")
    try:
        settings = model_settings(args)
        opts = Options(out=args.out, keywords=args.keywords, max_samples=args.max_samples,
                       allow_urls=args.allow_urls, threshold=args.threshold,
                       progress=not args.no_progress, shift=not args.no_shift)
        report = asyncio.run(run_pipeline(args.posts, settings, opts))
    except (ValueError, KeywordFileError) as exc:
        return fail("from-posts", str(exc))
    for err in report["errors"]:
        print(f"{err['line']}: {err['field']}: {err['problem']}", file=sys.stderr)
    failed = sum(report["calls"]["failed"].values())
    if args.json:
        print(json.dumps(report))
    else:
        st, su = report["stages"], report["suites"]
        print(" → ".join(f"{k} {v}" for k, v in st.items())
              + (f" | failed model calls {failed}" if failed else ""))
        if failed:
            stages = ", ".join(f"{k} {v}" for k, v in report["calls"]["failed"].items() if v)
            print(f"judge tasks from-posts: {failed} model call(s) failed ({stages}); the "
                  "stages after them are incomplete (e.g. 'relevant' counts only posts that "
                  "were graded): check --model and its key, then run the same command again "
                  "(answers already received are replayed, not paid for)", file=sys.stderr)
        print(f"wrote {args.out}: suite.t2i.jsonl ({su['t2i']}), suite.i2i.jsonl ({su['i2i']}), "
              f"analysis.jsonl ({su['analysis']}), report.json")
        top = ", ".join(f"{k} {v}" for k, v in list(report["failures"].items())[:8])
        print(f"failure keywords: {top or 'none'}")
    if failed:
        return EXIT_CALLS_FAILED
    return EXIT_MALFORMED if report["errors"] else 0
