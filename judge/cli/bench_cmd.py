"""``judge bench``: latency, calls, tokens and CPU per submission against the fake provider."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``bench`` verb."""
    p = sub.add_parser("bench", help="benchmark the engine against the built-in fake provider")
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


def register_load(sub: argparse._SubParsersAction) -> None:
    """Add the ``load-bench`` verb (see :mod:`api.load_bench`)."""
    p = sub.add_parser("load-bench", help="concurrent clients against a running service")
    p.add_argument("--latency", type=float, default=0.3, help="per-call provider latency L")
    p.add_argument("--clients", type=int, default=64, help="concurrent clients")
    p.add_argument("--requests", type=int, default=640, help="requests per run")
    p.add_argument("--workers", default="1,2", help="HTTP worker processes to compare")
    p.add_argument("--checkpoints", type=int, default=6)
    p.add_argument(
        "--batching", choices=["per_checkpoint", "per_modality"], default="per_checkpoint"
    )
    p.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="open loop: requests per second (0: closed loop, clients resend at once)",
    )
    p.add_argument(
        "--model",
        default="openai/fake-judge",
        help="litellm route to the fake provider (e.g. hosted_vllm/fake-judge)",
    )
    p.add_argument("--out", help="also write the report JSON here")
    p.set_defaults(handler=_load)


def _load(args: argparse.Namespace) -> int:
    from api.load_bench import main as load_main

    return load_main(args)
