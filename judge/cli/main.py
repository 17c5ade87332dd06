"""judge: score text-to-image submissions, build exemplar memories, serve and evaluate the judge.

Example:
    $ judge score examples/co_106/submission.json --format text
    $ judge skills
    $ judge --help          # every verb (judge/cli/verbs.py)

Only the verb being run is imported: ``judge --help`` lists :data:`judge.cli.verbs.VERBS`
from the table alone, and ``judge score ...`` never imports the service or the evaluation
workflows.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

# litellm's variable, not ours: it must be set before litellm is imported (no settings model
# can read it in time), so that no price map is fetched over the network
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from judge.cli.verbs import VERBS, known_variables, verbs

EXIT_INPUT = 2
EXIT_CONFIG = 3


def installed_version() -> str:
    """The installed distribution's version (``t2i-judge``), or ``unknown`` when the code runs
    from a checkout that was never installed.

    Example:
        >>> installed_version().count(".") >= 1 or installed_version() == "unknown"
        True
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("t2i-judge")
    except PackageNotFoundError:
        return "unknown"


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The argument parser: every verb listed, only ``verb`` (if any) fully registered."""
    parser = argparse.ArgumentParser(
        prog="judge",
        description=__doc__.splitlines()[0].removeprefix("judge: "),
        epilog="Run `judge COMMAND --help` for a command's options.",
    )
    parser.add_argument("--log-level", default="WARNING", help="DEBUG, INFO, WARNING, ERROR")
    parser.add_argument("--version", action="version", version=f"judge {installed_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for entry in verbs():
        if entry.name == verb:
            entry.load()(sub)
        else:
            sub.add_parser(entry.name, help=entry.help, add_help=False)
    _remember_parsers(parser)
    return parser


def _verb_in(argv: Sequence[str]) -> str | None:
    """The verb named on the command line (the first word that is one), if any."""
    names = set(VERBS)
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg == "--log-level":
            skip = True
            continue
        if arg.startswith("-"):
            continue
        return arg if arg in names else None
    return None


def _remember_parsers(parser: argparse.ArgumentParser) -> None:
    """Let every (sub-)parser record itself, so errors print the verb's own usage."""
    parser.set_defaults(_parser=parser)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                _remember_parsers(child)


def _missing_extra(exc: BaseException, verb: str | None) -> str | None:
    """The one line for a verb that needs an extra the install lacks (None: another error).
    The verb's floor decides between extras that share a module (SciPy: local or eval)."""
    from judge.cli.verbs import find
    from skills.extras import from_missing_module

    floor = find(verb).target.split(".")[0] if verb else "judge"
    prefer = {"api": "service", "eval": "eval"}.get(floor, "local")
    missing = from_missing_module(exc, "this command", prefer)
    return None if missing is None else f"judge {verb or ''}: {missing}".replace(" :", ":")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser(_verb_in(argv))
    except ImportError as exc:  # the verb's module needs an extra (`judge serve`: [service])
        if (line := _missing_extra(exc, _verb_in(argv))) is None:
            raise
        print(line, file=sys.stderr)
        return EXIT_INPUT
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:
            verb: argparse.ArgumentParser = getattr(args, "_parser", parser)
            verb.error(f"unrecognized arguments: {' '.join(extra)}")
    except BrokenPipeError:  # `judge --help | head`
        return _quiet_broken_pipe()
    logging.basicConfig(
        level=args.log_level.upper(),
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )
    from judge.env_check import warn_unknown_variables

    warn_unknown_variables(known_variables)  # a misspelt JUDGE_* name, once per process
    try:
        return int(args.handler(args) or 0)
    except BrokenPipeError:  # `judge skills | head`: the reader left; not an error of ours
        return _quiet_broken_pipe()
    except ImportError as exc:  # a feature of an extra the install lacks: one line
        if (line := _missing_extra(exc, _verb_in(argv))) is None:
            raise
        print(line, file=sys.stderr)
        return EXIT_INPUT
    except Exception as exc:  # a bad environment variable: say which, not a traceback
        from judge.config_env import settings_error

        if (problem := settings_error(exc)) is None:
            raise
        print(f"judge {_verb_in(argv) or ''}: {problem}".replace(" :", ":"), file=sys.stderr)
        return 2


def _quiet_broken_pipe() -> int:
    """Point stdout at /dev/null so the interpreter's final flush does not fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
