"""Benchmark instrumentation: when each model call of a process started and ended.

The benches report two figures, both as multiples of the per-call latency L:

- **model-call span**: from the start of the first model call to the end of the last one
  (every retry and re-ask included) — how well the calls overlap;
- **graph run**: the Result's ``usage.latency_s``, from the start of the graph run to its end —
  the span plus the engine's own work before the first call and after the last one.

:func:`record_call_spans` wraps the gateway's provider round trip for the duration of a block
(bench use only; nothing is recorded otherwise). Run as a module, it runs one ``judge``
command under the recording and prints the span as a last stderr line
``BENCH-SPANS {"calls": N, "span_s": S}``, so a fresh process measures itself.

Example:
    >>> with record_call_spans() as spans:
    ...     pass  # judge something here
    >>> call_span(spans) is None
    True

Or from a shell: ``python -m benchmarks.support.spans score FILE --model ...``.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Iterator
from typing import Any

MARKER = "BENCH-SPANS "


@contextlib.contextmanager
def record_call_spans() -> Iterator[list[tuple[float, float]]]:
    """Record ``(start, end)`` (``time.perf_counter``) of every model round trip in the block."""
    from judge.llm.gateway import LLMGateway

    spans: list[tuple[float, float]] = []
    original = LLMGateway._send

    async def timed(self: LLMGateway, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return await original(self, *args, **kwargs)
        finally:
            spans.append((start, time.perf_counter()))

    LLMGateway._send = timed  # type: ignore[method-assign]
    try:
        yield spans
    finally:
        LLMGateway._send = original  # type: ignore[method-assign]


def call_span(spans: list[tuple[float, float]]) -> float | None:
    """Seconds from the first call's start to the last call's end (``None``: no calls)."""
    if not spans:
        return None
    return max(end for _, end in spans) - min(start for start, _ in spans)


def parse_marker(stderr: str) -> dict | None:
    """The ``BENCH-SPANS`` record a probed process printed, if any."""
    for line in reversed(stderr.splitlines()):
        if line.startswith(MARKER):
            return json.loads(line.removeprefix(MARKER))
    return None


def main(argv: list[str]) -> int:
    """Run ``judge ARGV`` under the recording; report the span on stderr."""
    from judge.cli.main import main as judge_main

    with record_call_spans() as spans:
        code = judge_main(argv)
    sys.stdout.flush()
    print(MARKER + json.dumps({"calls": len(spans), "span_s": call_span(spans)}), file=sys.stderr)
    return code


if __name__ == "__main__":  # pragma: no cover - exercised through benchmarks.support.cold_start
    sys.exit(main(sys.argv[1:]))
