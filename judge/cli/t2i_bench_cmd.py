"""``judge t2i-bench``: time the built-in renderer and the litellm image path
(:mod:`judge.llm.images.bench`).

Example:
    $ judge t2i-bench --latency 0.2 --prompts 8 --images 4 --concurrency 4
"""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``t2i-bench`` verb."""
    from judge.llm.images.bench import add_arguments

    p = sub.add_parser("t2i-bench", help="benchmark the T2I backends (renderer, litellm path)")
    add_arguments(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print its report."""
    from judge.llm.images.bench import main

    return main(args)
