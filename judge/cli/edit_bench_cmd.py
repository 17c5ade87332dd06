"""``judge edit-bench``: time the model-free edit shift metrics (:mod:`skills.metrics.bench`).

Example:
    $ judge edit-bench --size 1024 --repeats 5 --out edit-bench.json
"""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``edit-bench`` verb."""
    from skills.metrics.bench import add_arguments

    p = sub.add_parser("edit-bench", help="benchmark the edit shift metrics on a 1024² pair")
    add_arguments(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print its report."""
    from skills.metrics.bench import main

    return main(args)
