"""``judge tasks from-posts``: task suites (t2i, i2i) and a report from a posts export.

Example:
    $ judge tasks from-posts export/posts.jsonl --out bench --model openai/gpt-4o
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from eval.tasks.fail import fail
from eval.tasks.models import model_settings


def run_from_posts(args: argparse.Namespace) -> int:
    """Build the suites; exit 0 (1 when some lines were malformed, 2 on a usage error)."""
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
