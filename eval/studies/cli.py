"""``judge study ACTION``: one verb whose actions live in their own modules.

Each action module exposes ``register(actions)`` taking the ``study`` verb's sub-parsers, the way
top-level verbs do. An action whose module cannot be imported still appears; calling it says
why it is unavailable (exit 2), and the other actions work.

Example:
    $ judge study run study.toml --out runs/demo
    $ judge study report runs/demo
"""

from __future__ import annotations

import argparse
import importlib
import sys

ACTIONS: dict[str, str] = {
    "run": "eval.studies.run_cli",
    "report": "eval.studies.report.cli",
    "report-bench": "eval.studies.report.bench_cli",
    "import-prompts": "eval.studies.participants.cli",
    "bench": "eval.studies.bench",
}
"""Action name → module with a ``register(actions)`` function."""


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``study`` verb and every importable action under it."""
    p = sub.add_parser("study", help="run prompt-proficiency studies and report on them")
    actions = p.add_subparsers(dest="study_command", required=True, metavar="ACTION")
    for name, module in ACTIONS.items():
        try:
            importlib.import_module(module).register(actions)
        except ImportError as exc:
            _unavailable(actions, name, str(exc))


def _unavailable(actions: argparse._SubParsersAction, name: str, why: str) -> None:
    def handler(_args: argparse.Namespace) -> int:
        print(f"judge study {name}: unavailable ({why})", file=sys.stderr)
        return 2

    p = actions.add_parser(name, help=f"(unavailable: {why})")
    p.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    p.set_defaults(handler=handler)
