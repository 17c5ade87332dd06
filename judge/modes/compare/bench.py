"""``judge compare-bench``: model time, calls and engine CPU of one pairwise comparison.

Starts the built-in fake provider in its own process with a per-call latency L, judges a
comparison of two 1024² images on the three default criteria (6 judge calls, both orders
of each criterion, plus 3 safety screens that run alongside) with the cache off, and
reports the median model time as a multiple of L (target ≤ 1.3 L: every call concurrent).

Example:
    $ judge compare-bench --latency 0.5 --repeats 5
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import statistics
import sys
import time


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

    from judge.engine import Judge
    from judge.fake_provider import spawn_fake_provider, stop_process

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
            cpu0 = time.process_time()
            result = judge.compare(comparison, cache=False)
            rows.append(
                {
                    "model_time_x_L": result.usage.latency_s / latency,
                    "calls": result.usage.llm_calls,
                    "cpu_ms": (time.process_time() - cpu0) * 1000,
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
        "engine_cpu_ms_median": round(statistics.median(r["cpu_ms"] for r in rows), 1),
    }


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``compare-bench`` verb."""
    p = sub.add_parser(
        "compare-bench",
        help="time one 3-criterion comparison against the fake provider (model time as ×L)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--latency", type=float, default=0.5, help="per-call latency L (default 0.5)")
    p.add_argument("--repeats", type=int, default=5, help="comparisons measured (default 5)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(handler=_cli)


def _cli(args: argparse.Namespace) -> int:
    if args.latency <= 0 or args.repeats < 1:
        print("judge compare-bench: --latency must be > 0 and --repeats ≥ 1", file=sys.stderr)
        return 2
    report = run_bench(args.latency, args.repeats)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"compare, 3 criteria × 2 orders + 3 safety screens = "
            f"{report['calls_per_comparison']} calls at L = {args.latency} s: model time "
            f"{report['model_time_x_L_median']} L median (max {report['model_time_x_L_max']}), "
            f"engine CPU {report['engine_cpu_ms_median']} ms"
        )
    return 0
