"""``judge study ACTION``: one verb whose actions live in their own modules.

Each action module exposes ``register(actions)`` taking the ``study`` verb's sub-parsers, the way
top-level verbs do; :data:`ACTIONS` lists them explicitly.

Example:
    $ judge study run study.toml --out runs/demo
    $ judge study report runs/demo
"""

from __future__ import annotations

import argparse

from eval.studies import run_cli
from eval.studies.participants import cli as participants_cli
from eval.studies.report import cli as report_cli

ACTIONS = (run_cli, report_cli, participants_cli)
"""Modules with a ``register(actions)`` function, in the order ``--help`` lists them."""


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``study`` verb and its actions."""
    p = sub.add_parser("study", help="run prompt-proficiency studies and report on them")
    actions = p.add_subparsers(dest="study_command", required=True, metavar="ACTION")
    for module in ACTIONS:
        module.register(actions)
