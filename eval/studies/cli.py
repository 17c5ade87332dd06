"""``judge study ACTION``: one verb whose actions live in their own modules.

Each action module exposes ``register(actions)`` taking the ``study`` verb's sub-parsers, the way
top-level verbs do. An action whose module cannot be imported is left out with a note, so a
missing optional part never breaks the other actions.

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
            print(f"note: `judge study {name}` is unavailable ({exc})", file=sys.stderr)
