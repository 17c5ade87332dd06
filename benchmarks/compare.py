"""``python -m benchmarks.compare``: model time, calls and engine CPU of one pairwise comparison.

Starts the built-in fake provider in its own process with a per-call latency L, judges a
comparison of two 1024² images on the three default criteria (6 judge calls, both orders
of each criterion, plus 3 safety screens that run alongside) with the cache off, and
reports, as medians over the repeats and multiples of L:

- **graph run** (``model_time_x_L``): the Result's ``usage.latency_s``, the graph run from its
  start to its end — the figure the ≤ 1.3 L target (every call concurrent) is judged on;
- **model-call span** (``call_span_x_L``): from the first model call's start to the last
  one's end (see :mod:`benchmarks.support.spans`);
- **request wall** (``wall_x_L``): the whole ``Judge.compare`` call, image decoding included;

and the engine CPU per comparison (this process, every thread).

Example:
    $ python -m benchmarks.compare --latency 0.5 --repeats 5
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import statistics
import sys
import time

TARGET_X_L = 1.3


def bench_image(seed: int, side: int = 1024) -> str:
    """A smooth, lightly noisy ``side``² PNG (compresses like a generated image)."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:side, 0:side] / side
    base = rng.uniform(40, 200, size=3)
    pixels = np.stack([base[0] + 50 * x, base[1] + 50 * y, base[2] + 40 * x * y], axis=-1)
    pixels += rng.normal(0, 4, size=pixels.shape)
    buf = io.BytesIO()
    Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).save(buf, "PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def run_bench(latency: float, repeats: int) -> dict:
    """Measure; returns the report as a dict."""
    from tqdm import tqdm

    from benchmarks.support.spans import call_span, record_call_spans
    from judge.engine import Judge
    from tests.fakes.provider import spawn_fake_provider, stop_process

    comparison = {
        "prompt": "A lighthouse on a cliff at dusk, waves below",
        "a": {"image": bench_image(1), "model": "x"},
        "b": {"image": bench_image(2), "model": "y"},
    }
    proc, base_url = spawn_fake_provider(latency=latency)
    try:
        judge = Judge(model="openai/fake-judge", api_base=base_url, api_key="bench")
        judge.compare(comparison, cache=False)  # warm-up: imports, first connections
        rows = []
        for _ in tqdm(range(repeats), desc="compare", file=sys.stderr, leave=False):
            with record_call_spans() as spans:
                cpu0, wall0 = time.process_time(), time.perf_counter()
                result = judge.compare(comparison, cache=False)
                wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
            rows.append(
                {
                    "model_time_x_L": result.usage.latency_s / latency,
                    "call_span_x_L": (call_span(spans) or 0.0) / latency,
                    "wall_x_L": wall / latency,
                    "calls": result.usage.llm_calls,
                    "cpu_ms": cpu * 1000,
                }
            )
    finally:
        stop_process(proc)
    return {
        "latency_s": latency,
        "repeats": repeats,
        "criteria": 3,
        "judge_calls": 6,
        "calls_per_comparison": rows[-1]["calls"],
        "model_time_x_L_median": round(statistics.median(r["model_time_x_L"] for r in rows), 3),
        "model_time_x_L_max": round(max(r["model_time_x_L"] for r in rows), 3),
        "call_span_x_L_median": round(statistics.median(r["call_span_x_L"] for r in rows), 3),
        "wall_x_L_median": round(statistics.median(r["wall_x_L"] for r in rows), 3),
        "target_x_L": TARGET_X_L,
        "engine_cpu_ms_median": round(statistics.median(r["cpu_ms"] for r in rows), 1),
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.compare``: parse the options, run, print the report."""
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.compare",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--latency", type=float, default=0.5, help="per-call latency L (default 0.5)")
    p.add_argument("--repeats", type=int, default=5, help="comparisons measured (default 5)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    return _cli(p.parse_args(argv))


def _cli(args: argparse.Namespace) -> int:
    if args.latency <= 0 or args.repeats < 1:
        print("benchmarks.compare: --latency must be > 0 and --repeats ≥ 1", file=sys.stderr)
        return 2
    report = run_bench(args.latency, args.repeats)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"compare, 3 criteria × 2 orders + 3 safety screens = "
            f"{report['calls_per_comparison']} calls at L = {args.latency} s "
            f"(medians of {args.repeats}, multiples of L):\n"
            f"  graph run (usage.latency_s; target <= {TARGET_X_L} L): "
            f"{report['model_time_x_L_median']} (max {report['model_time_x_L_max']})\n"
            f"  model-call span (first call's start to last call's end): "
            f"{report['call_span_x_L_median']}\n"
            f"  request wall (Judge.compare, image decoding included): "
            f"{report['wall_x_L_median']}\n"
            f"  engine CPU per comparison: {report['engine_cpu_ms_median']} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
