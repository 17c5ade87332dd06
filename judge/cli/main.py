"""judge: score text-to-image submissions, build exemplar memories, serve and evaluate the judge.

Example:
    $ judge score examples/co_106/submission.json --format text
    $ judge skills
    $ judge --help          # every verb, including those other packages register

The verbs come from :data:`judge.cli.commands.REGISTRY` (the engine's own) and from the
``t2i_judge.commands`` entry points of installed packages (:mod:`judge.cli.plugins`).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from judge.cli import commands, plugins

EXIT_INPUT = 2
EXIT_CONFIG = 3


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with one sub-command per verb."""
    parser = argparse.ArgumentParser(
        prog="judge",
        description=__doc__.splitlines()[0].removeprefix("judge: "),
        epilog="Run `judge COMMAND --help` for a command's options.",
    )
    parser.add_argument("--log-level", default="WARNING", help="DEBUG, INFO, WARNING, ERROR")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for register in commands.REGISTRY:
        register(sub)
    plugins.register_all(sub)
    _remember_parsers(parser)
    return parser


def _remember_parsers(parser: argparse.ArgumentParser) -> None:
    """Let every (sub-)parser record itself, so errors print the verb's own usage."""
    parser.set_defaults(_parser=parser)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                _remember_parsers(child)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        verb: argparse.ArgumentParser = getattr(args, "_parser", parser)
        verb.error(f"unrecognized arguments: {' '.join(extra)}")
    logging.basicConfig(
        level=args.log_level.upper(),
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )
    return int(args.handler(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
