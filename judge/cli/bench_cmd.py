"""``judge bench``: latency, calls, tokens and CPU per submission against the fake provider."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``bench`` verb."""
    p = sub.add_parser(
        "bench",
        help="benchmark the engine against the built-in fake provider",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--latency", type=float, default=0.5, help="per-call provider latency L (s)")
    p.add_argument("--checkpoints", type=int, default=12, help="checkpoints in the CO task")
    p.add_argument("--repeats", type=int, default=5, help="submissions per configuration")
    p.add_argument("--fault-rate", type=float, default=0.3, help="fault rate for the fault run")
    p.add_argument(
        "--cold-start",
        type=int,
        default=10,
        metavar="N",
        help="fresh `judge score` processes for the cold-start figure (0: skip; default 10)",
    )
    p.add_argument("--cold-start-only", action="store_true", help="measure only the cold start")
    p.add_argument("--out", help="also write the report JSON here")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print its report."""
    from judge.bench import main as bench_main

    return bench_main(args)
