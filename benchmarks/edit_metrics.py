"""Benchmark of the edit shift metrics on one 1024² pair: per-metric medians after warm-up.

The pair is built offline: scikit-image's astronaut photo upscaled to ``--size`` as the
source; the edit adds a yellow tint and a white sign reading "OPEN LATE", with the
instruction ``Add a sign that says "OPEN LATE".`` so all four metrics apply. One warm-up
run loads every model once (its time is reported as ``warmup_seconds``); then each of
``--repeats`` runs times input preparation and every metric separately (wall clock and
process CPU time) and the whole :func:`~skills.metrics.compute_all` call, all cold (the
per-image cache cleared), then a second edit of the same source
(``next_edit_same_source``: best-of-n reuses the source's faces and features).

Usage::

    python -m benchmarks.edit_metrics --repeats 5 --out bench.json
    python -m benchmarks.edit_metrics --size 1024 --torch-threads 1

``--torch-threads`` sets torch's intra-op threads for the run (default 1: on a loaded
2-core machine extra threads spin and cost several times the CPU; 0 leaves torch's own
default).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageEnhance, ImageFont

from skills.metrics import cache, compute_all, get_metric, metric_names
from skills.metrics.inputs import prepare_pair
from skills.metrics.registry import MetricOptions

INSTRUCTION = 'Add a sign that says "OPEN LATE".'
TARGET_SECONDS = 1.5


def bench_pair(size: int = 1024) -> tuple[Image.Image, Image.Image]:
    """The benchmark's source and edited image (``size`` × ``size``)."""
    from skimage import data

    source = Image.fromarray(data.astronaut()).resize((size, size), Image.Resampling.BICUBIC)
    tinted = np.asarray(source, np.float32) * np.array([1.04, 1.0, 0.82]) + np.array([8, 6, 0])
    edited = Image.fromarray(tinted.clip(0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(edited)
    s = size / 1024
    draw.rectangle((40 * s, 860 * s, 700 * s, 990 * s), fill="white")
    font = ImageFont.load_default(size=max(8, round(80 * s)))
    draw.text((60 * s, 880 * s), "OPEN LATE", font=font, fill="black")
    return source, edited


def _timed(fn: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def run_bench(
    *, size: int = 1024, repeats: int = 5, dinov2: str | None = None, progress: bool = True
) -> dict[str, Any]:
    """Time every metric; returns the report (seconds, medians over ``repeats``)."""
    from tqdm import tqdm

    source, edited = bench_pair(size)
    options = MetricOptions(dinov2=dinov2)
    names = metric_names()
    _, warm, _ = _timed(lambda: compute_all(source, edited, INSTRUCTION, dinov2=dinov2))
    rows: dict[str, list[tuple[float, float]]] = {
        n: [] for n in ["prepare", *names, "all", "next_edit_same_source"]
    }
    values: dict[str, Any] = {}
    second = ImageEnhance.Brightness(edited).enhance(1.03)  # another, similar candidate edit
    for _ in tqdm(range(repeats), desc="edit-bench", disable=not progress, file=sys.stderr):
        cache.clear()  # time cold pairs: nothing remembered from the previous repeat
        pair, wall, cpu = _timed(lambda: prepare_pair(source, edited))
        rows["prepare"].append((wall, cpu))
        for name in names:
            metric = get_metric(name)
            _, _, facts = metric.applicability(INSTRUCTION)
            value, wall, cpu = _timed(lambda m=metric, f=facts, p=pair: m.compute(p, options, f))
            rows[name].append((wall, cpu))
            values[name] = value.value
        cache.clear()
        _, wall, cpu = _timed(lambda: compute_all(source, edited, INSTRUCTION, dinov2=dinov2))
        rows["all"].append((wall, cpu))
        # best-of-n: the next edit of the same source reuses the source's faces and features
        _, wall, cpu = _timed(lambda: compute_all(source, second, INSTRUCTION, dinov2=dinov2))
        rows["next_edit_same_source"].append((wall, cpu))
    med = {
        k: {
            "wall_median": round(statistics.median(w for w, _ in v), 4),
            "cpu_median": round(statistics.median(c for _, c in v), 4),
        }
        for k, v in rows.items()
    }
    total = med["all"]["wall_median"]
    return {
        "size": size,
        "repeats": repeats,
        "instruction": INSTRUCTION,
        "structure_encoder": "dinov2" if dinov2 else "efficientnet-lite0",
        "warmup_seconds": round(warm, 3),
        "seconds": med,
        "total_wall_median": total,
        "total_cpu_median": med["all"]["cpu_median"],
        "target_seconds": TARGET_SECONDS,
        "target_met": total < TARGET_SECONDS,
        "values": values,
    }


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The benchmark's options ."""
    p.add_argument("--size", type=int, default=1024, help="side of the square pair (px)")
    p.add_argument("--repeats", type=int, default=5, help="timed runs after the warm-up")
    p.add_argument("--dinov2", help="local DINOv2 folder for structure_distance")
    p.add_argument("--torch-threads", type=int, default=1, help="torch threads (0: default)")
    p.add_argument("--out", help="also write the report JSON here")


def run_args(args: argparse.Namespace) -> int:
    """Run with parsed ``args``; prints the report JSON. Exit 2 on bad options."""
    if args.size < 64 or args.repeats < 1 or args.torch_threads < 0:
        print(
            "benchmarks.edit_metrics: --size must be >= 64, --repeats >= 1, --torch-threads >= 0",
            file=sys.stderr,
        )
        return 2
    if args.torch_threads:
        import torch

        torch.set_num_threads(args.torch_threads)
    report = run_bench(size=args.size, repeats=args.repeats, dinov2=args.dinov2)
    report["torch_threads"] = args.torch_threads or "default"
    text = json.dumps(report, indent=2, ensure_ascii=False)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m benchmarks.edit_metrics [options]``."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.edit_metrics", description=__doc__)
    add_arguments(parser)
    return run_args(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
