"""``judge``: score submissions, list skills, run the benchmark.

Example:
    $ judge score examples/co_106/submission.json --model openai/gpt-4o > result.json
    $ judge skills
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from judge.cli import commands

EXIT_INPUT = 2
EXIT_CONFIG = 3


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with one sub-command per verb."""
    parser = argparse.ArgumentParser(prog="judge", description=__doc__.splitlines()[0])
    parser.add_argument("--log-level", default="WARNING", help="DEBUG, INFO, WARNING, ERROR")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for register in commands.REGISTRY:
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=args.log_level.upper(),
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )
    return int(args.handler(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
