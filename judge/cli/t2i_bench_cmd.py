"""``judge t2i-bench``: time the built-in renderer and the litellm image path
(:mod:`judge.llm.images.bench`).

Example:
    $ judge t2i-bench --latency 0.2 --prompts 8 --images 4 --concurrency 4
"""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``t2i-bench`` verb (its options are defined here, so building the CLI imports
    none of the image path)."""
    p = sub.add_parser("t2i-bench", help="benchmark the T2I backends (renderer, litellm path)")
    add_arguments(p)
    p.set_defaults(handler=run)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The benchmark's options (``judge t2i-bench`` and ``python -m judge.llm.images.bench``)."""
    p.add_argument("--sizes", default="256x256,512x512", help="renderer sizes, comma list")
    p.add_argument("--repeats", type=int, default=30, help="renderer images per size")
    p.add_argument("--latency", type=float, default=0.2, help="fake provider seconds per call")
    p.add_argument("--prompts", type=int, default=8, help="concurrent generations (litellm)")
    p.add_argument("--images", type=int, default=4, help="images per generation")
    p.add_argument("--size", default="256x256", help="image size asked of the fake")
    p.add_argument("--concurrency", type=int, default=4, help="the backend's concurrency cap")
    p.add_argument("--skip-litellm", action="store_true", help="only time the renderer")
    p.add_argument("--out", type=Path, help="also write the JSON report here")


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print its report."""
    from judge.llm.images.bench import main

    return main(args)
