"""``judge tasks``: the verb's command line, its five actions and their options.

Example:
    $ judge tasks check examples/study/tasks.jsonl
    $ judge tasks checklist my_tasks.jsonl --model openai/gpt-4o --out my_tasks.checked.jsonl
    $ judge tasks from-posts export/posts.jsonl --out bench --model openai/gpt-4o
    $ judge tasks edits photos/ --out edits.jsonl --model openai/gpt-4o
    $ judge tasks run-report judged.jsonl --out run --human-rankings humans.jsonl
"""

from __future__ import annotations

import argparse
from pathlib import Path

from eval.tasks.check import run_check
from eval.tasks.checklist import run_checklist
from eval.tasks.edits import run_edits
from eval.tasks.from_posts import run_from_posts
from eval.tasks.models import model_options
from eval.tasks.run_report import run_report_cmd


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``tasks`` verb and its actions."""
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

    f = actions.add_parser("from-posts", help="build task suites from a posts export")
    f.add_argument("posts", type=Path, help="posts export (JSONL, one post a line)")
    f.add_argument("--out", type=Path, required=True, help="output folder")
    f.add_argument("--keywords", type=Path, help="keyword windows (TOML); default: packaged")
    f.add_argument("--max-samples", type=int, help="cap on each suite (t2i, i2i)")
    f.add_argument("--threshold", type=int, choices=range(1, 6), help="relevance grade to keep")
    f.add_argument("--allow-urls", action="store_true",
                   help="fetch image URLs (through the hostile-URL fetcher)")
    f.add_argument("--no-shift", action="store_true", help="skip the shift metrics")
    model_options(f)
    f.set_defaults(handler=run_from_posts)

    e = actions.add_parser("edits", help="write edit instructions for a folder of images")
    e.add_argument("images", type=Path, nargs="?", help="folder of source images")
    e.add_argument("--out", type=Path, required=True, help="edit tasks to write (JSONL)")
    e.add_argument("--types", type=Path, help="folder of your own category cards (TOML)")
    e.add_argument("--categories", type=Path, help="CSV image,category (skips classification)")
    e.add_argument("--from-csv", type=Path,
                   help="import hand-written instructions (CSV image,instruction,category,"
                        "edit_type) instead of generating")
    model_options(e)
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
