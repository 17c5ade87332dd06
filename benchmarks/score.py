"""``python -m benchmarks.score``: how long, how many calls, how many tokens and how much
engine CPU one submission costs, against the built-in fake provider running in its own process.

Reports, for a CO submission with N checkpoints and one 1024² image:
- model time of one submission as a multiple of the per-call latency L (median), for each
  checkpoint-batching mode, and for speculative vs sequential safety: the graph run
  (``usage.latency_s``) and the model-call span (first call's start to last call's end);
- calls and tokens per submission for each batching mode;
- engine CPU milliseconds per submission (this process only; the provider is elsewhere);
- with a fault rate (429, 500, truncated JSON), how many submissions end fully scored;
- cold start: model time of N fresh ``judge score`` processes
  (see :mod:`benchmarks.support.cold_start`).

Example:
    $ python -m benchmarks.score --latency 0.5 --repeats 5
    $ python -m benchmarks.score --cold-start-only --cold-start 10
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import statistics
import sys
import time
from typing import Any

import numpy as np
from PIL import Image
from tqdm import tqdm

from benchmarks.support import cold_start as bench_cold
from benchmarks.support.spans import call_span, record_call_spans
from judge.config import JudgeSettings
from judge.engine import Judge
from tests.fakes.provider import spawn_fake_provider, stop_process


def bench_submission(n_checks: int, side: int = 1024) -> dict:
    """A CO submission with ``n_checks`` paired checkpoints and one ``side``² image.

    The image is smooth gradients, shapes and mild grain: it compresses like a typical
    generated image (pure noise would be a 4x larger worst case).
    """
    rng = np.random.default_rng(0)
    y, x = np.mgrid[0:side, 0:side] / side
    pixels = np.stack([200 * x + 30, 120 * y + 60, 180 * (1 - x * y) + 40], axis=-1)
    disc = (x - 0.5) ** 2 + (y - 0.45) ** 2 < 0.06
    pixels[disc] = [250, 190, 80]
    pixels += rng.normal(0, 4, size=pixels.shape)
    buf = io.BytesIO()
    Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).save(buf, "PNG")
    url = "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()
    checklist = [
        {
            "id": f"c{k}",
            "primitive": "quantity",
            "prompt_check": f"The prompt asks for exactly {k} lanterns.",
            "image_check": f"Exactly {k} lanterns are visible.",
        }
        for k in range(1, n_checks + 1)
    ]
    return {
        "task": {
            "id": "bench_co",
            "category": "CO",
            "checklist": checklist,
            "brief": "A night market poster with paper lanterns, a title and two stalls.",
        },
        "prompt": "Night market poster, warm paper lanterns over two food stalls, bold title.",
        "images": [url],
    }


def _run(judge: Judge, sub: dict, repeats: int, label: str, **overrides: Any) -> list[dict]:
    rows = []
    for _ in tqdm(range(repeats), desc=label, file=sys.stderr, leave=False):
        with record_call_spans() as spans:
            cpu0 = time.process_time()
            result = judge.score(sub, cache=False, **overrides)
            cpu = time.process_time() - cpu0
        rows.append(
            {
                "latency_s": result.usage.latency_s,
                "span_s": call_span(spans) or 0.0,
                "cpu_ms": cpu * 1000,
                "calls": result.usage.llm_calls,
                "prompt_tokens": result.usage.prompt_tokens,
                "completion_tokens": result.usage.completion_tokens,
                "retries": result.usage.retries,
                "reasks": result.usage.reasks,
                "status": result.status,
            }
        )
    return rows


def _summary(rows: list[dict], latency: float) -> dict:
    med = statistics.median
    return {
        "latency_x_L": round(med(r["latency_s"] for r in rows) / latency, 3),
        "latency_x_L_max": round(max(r["latency_s"] for r in rows) / latency, 3),
        "span_x_L": round(med(r["span_s"] for r in rows) / latency, 3),
        "calls": med(r["calls"] for r in rows),
        "prompt_tokens": med(r["prompt_tokens"] for r in rows),
        "completion_tokens": med(r["completion_tokens"] for r in rows),
        "cpu_ms": round(med(r["cpu_ms"] for r in rows), 1),
        "fully_scored": f"{sum(r['status'] == 'scored' for r in rows)}/{len(rows)}",
        "retries": sum(r["retries"] for r in rows),
        "reasks": sum(r["reasks"] for r in rows),
    }


def run_bench(latency: float, n_checks: int, repeats: int, fault_rate: float) -> dict:
    """Run every configuration; returns the report as a dict."""
    sub = bench_submission(n_checks)
    proc, base_url = spawn_fake_provider(latency=latency)
    faulty, faulty_url = spawn_fake_provider(
        latency=latency, fault_rate=fault_rate, fault_kinds=("429", "500", "truncated"), seed=7
    )
    try:
        settings = JudgeSettings(
            model="openai/fake-judge",
            api_base=base_url,
            api_key="bench",
            timeout_s=max(10.0, 5 * latency),
            backoff_base_s=0.05,
            backoff_max_s=1.0,
        )
        judge = Judge(settings)
        judge.score(sub, cache=False)  # warm-up: litellm imports lazily on the first call
        configs = {
            "per_checkpoint": {},
            "per_modality": {"checkpoint_batching": "per_modality"},
            "subjective_per_modality": {"subjective_batching": "per_modality"},
            "both_per_modality": {
                "checkpoint_batching": "per_modality",
                "subjective_batching": "per_modality",
            },
            "per_checkpoint+sequential_safety": {"speculative_safety": False},
        }
        report: dict[str, Any] = {
            "latency_L_s": latency,
            "checkpoints": n_checks,
            "repeats": repeats,
            "configs": {},
        }
        for name, overrides in configs.items():
            report["configs"][name] = _summary(
                _run(judge, sub, repeats, name, **overrides), latency
            )
        fjudge = Judge(settings.merged(api_base=faulty_url))
        rows = _run(fjudge, sub, repeats * 4, f"faults {fault_rate:.0%}")
        report["configs"][f"per_checkpoint+faults_{fault_rate:.0%}"] = _summary(rows, latency)
        return report
    finally:
        stop_process(proc)
        stop_process(faulty)


def run_cold(latency: float, n_checks: int, processes: int) -> dict:
    """The cold-start figure: ``processes`` fresh ``judge score`` runs against a fake provider."""
    proc, base_url = spawn_fake_provider(latency=latency)
    try:
        return bench_cold.run_cold_start(bench_submission(n_checks), base_url, latency, processes)
    finally:
        stop_process(proc)


def render(report: dict) -> str:
    """A plain-text table of the report."""
    cols = [
        "latency_x_L",
        "latency_x_L_max",
        "span_x_L",
        "calls",
        "prompt_tokens",
        "completion_tokens",
        "cpu_ms",
        "fully_scored",
        "retries",
        "reasks",
    ]
    lines = [
        f"judge bench: CO submission, {report['checkpoints']} checkpoints, one 1024² "
        f"image, L = {report['latency_L_s']} s, {report['repeats']} runs per config "
        "(medians; the fault run uses 4x as many). latency_x_L: graph run (usage.latency_s) "
        "as a multiple of L; span_x_L: first model call's start to last call's end",
        "",
    ]
    lines.append(f"{'config':36}" + "".join(f"{c:>18}" for c in cols))
    for name, row in report["configs"].items():
        lines.append(f"{name:36}" + "".join(f"{row[c]!s:>18}" for c in cols))
    return "\n".join(lines)


def parser() -> argparse.ArgumentParser:
    """The benchmark's options."""
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.score",
        description="benchmark the engine against the fake provider",
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
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its report; returns the exit code."""
    args = parser().parse_args(argv)
    if args.latency <= 0 or args.repeats < 1 or args.checkpoints < 1 or args.cold_start < 0:
        print(
            "benchmarks.score: --latency must be > 0, --repeats and --checkpoints >= 1, "
            "--cold-start >= 0",
            file=sys.stderr,
        )
        return 2
    if args.cold_start_only and args.cold_start < 1:
        print("benchmarks.score: --cold-start-only needs --cold-start >= 1", file=sys.stderr)
        return 2
    report: dict[str, Any] = {"latency_L_s": args.latency, "checkpoints": args.checkpoints}
    if not args.cold_start_only:
        report = run_bench(args.latency, args.checkpoints, args.repeats, args.fault_rate)
        print(render(report))
    if args.cold_start:
        report["cold_start"] = run_cold(args.latency, args.checkpoints, args.cold_start)
        print(bench_cold.render(report["cold_start"]))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(report, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
