"""Run the fake provider in the foreground, as its own process.

Prints exactly one line ``READY <base_url>`` (``http://HOST:PORT/v1`` for the default
OpenAI-compatible API) to stdout once listening, then serves
until SIGTERM or SIGINT. A parent process reads that line to learn the port (see
:func:`tests.fakes.provider.spawn_fake_provider`).

Example::

    python -m tests.fakes.provider --port 0 --latency 0.5 \\
        --fault-rate 0.3 --fault-kinds 429,500,truncated --seed 1
    python -m tests.fakes.provider --api anthropic     # or gemini, ollama
    python -m tests.fakes.provider --rate-limit 40     # 429 beyond 40 requests a second
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence

from tests.fakes.provider.faults import (
    FATAL_FAULT_KINDS,
    FAULT_KINDS,
    IMAGE_FAULT_KINDS,
    check_kinds,
)
from tests.fakes.provider.registry import FAKES, fake_class


def _kinds(text: str) -> tuple[str, ...]:
    try:
        return check_kinds(k.strip() for k in text.split(",") if k.strip())
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m tests.fakes.provider",
        description="Fake model provider (real HTTP on loopback) for tests and benchmarks.",
    )
    parser.add_argument(
        "--api", choices=sorted(FAKES), default="openai", help="wire format (default openai)"
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per call")
    parser.add_argument("--jitter", type=float, default=0.0, help="± seconds around latency")
    parser.add_argument("--hang-s", type=float, default=30.0, help="sleep of the timeout fault")
    parser.add_argument("--fault-rate", type=float, default=0.0, help="probability per call")
    parser.add_argument(
        "--fault-kinds",
        type=_kinds,
        default=FAULT_KINDS,
        help=f"comma list of {FAULT_KINDS}; also {FATAL_FAULT_KINDS} and, for the images "
        f"endpoint, {IMAGE_FAULT_KINDS}",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--rate-limit", type=float, default=0.0, help="chat requests per second (0: no limit)"
    )
    parser.add_argument(
        "--keep-calls",
        type=int,
        default=1000,
        help="request records kept in memory, the newest (the admin counts cover all calls)",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Serve until SIGTERM/SIGINT; return the exit code."""
    args = parse_args(argv)
    provider = fake_class(args.api)(
        host=args.host,
        port=args.port,
        latency=args.latency,
        jitter=args.jitter,
        hang_s=args.hang_s,
        fault_rate=args.fault_rate,
        fault_kinds=args.fault_kinds,
        seed=args.seed,
        rate_limit=args.rate_limit,
        keep_calls=args.keep_calls,
    )
    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())
    with provider:
        print(f"READY {provider.base_url}", flush=True)
        while not done.wait(timeout=1.0):
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
