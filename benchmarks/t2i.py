"""Benchmark of the T2I backends: the built-in renderer's time per image, and the litellm
path's overhead against the fake provider in its own process at latency L.

Report (JSON on stdout, or ``--out FILE``):

- ``builtin``: median milliseconds per image of ``builtin/renderer`` at each of ``--sizes``
  (target: under 20 ms at 256×256, scaled by area for other sizes);
- ``litellm``: ``--prompts`` generations of ``--images`` images each, all started at once
  against an OpenAI-compatible fake with per-call latency ``--latency`` and a backend cap of
  ``--concurrency`` calls: wall time as a multiple of L (the floor is
  ceil(prompts / concurrency)), median per-generation time in L, calls, and the generator's
  CPU milliseconds per image (litellm, decoding, PNG re-encoding).

Usage::

    python -m benchmarks.t2i --latency 0.2 --prompts 8 --images 4 --concurrency 4
    python -m benchmarks.t2i --sizes 256x256,512x512 --repeats 50
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eval.t2i.builtin import parse_size, render_card
from eval.t2i.generator import ImageGenerator
from eval.t2i.spec import BackendSpec
from judge.config import JudgeSettings

PROMPT = "three blue spheres on a red table, a sign that reads OPEN, soft morning light"
TARGET_MS = 20.0


def bench_builtin(sizes: list[tuple[int, int]], repeats: int) -> dict[str, Any]:
    """Median ms per image of the built-in renderer at each size (after one warm-up)."""
    out: dict[str, Any] = {}
    for size in sizes:
        render_card(PROMPT, 0, 0, size)
        times = []
        for k in range(repeats):
            t = time.perf_counter()
            render_card(PROMPT, 0, k, size)
            times.append((time.perf_counter() - t) * 1000)
        target = TARGET_MS * max(1.0, size[0] * size[1] / 256**2)
        out[f"{size[0]}x{size[1]}"] = {
            "median_ms": round(statistics.median(times), 2),
            "max_ms": round(max(times), 2),
            "target_ms": round(target, 1),
            "within_target": statistics.median(times) < target,
        }
    return out


async def _bench_litellm(args: argparse.Namespace, base_url: str) -> dict[str, Any]:
    gen = ImageGenerator(JudgeSettings(backoff_base_s=0.01, backoff_max_s=0.1))
    spec = BackendSpec(
        id="bench",
        model="openai/fake-image",
        api_base=base_url,
        size=args.size,
        concurrency=args.concurrency,
    )
    await gen.generate(spec, "warm-up", 1)  # provider imports and the first connection
    cpu, wall = time.process_time(), time.perf_counter()
    results = await asyncio.gather(
        *(gen.generate(spec, f"{PROMPT} #{k}", args.images) for k in range(args.prompts))
    )
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    lat = args.latency
    per = [g.usage["latency_s"] / lat for g in results]
    images = sum(len(g.images) for g in results)
    return {
        "latency_s": lat,
        "prompts": args.prompts,
        "images_per_prompt": args.images,
        "concurrency": args.concurrency,
        "statuses": sorted({g.status for g in results}),
        "calls": sum(g.usage["calls"] for g in results),
        "wall_in_L": round(wall / lat, 2),
        "floor_in_L": math.ceil(args.prompts / args.concurrency),
        "median_generation_in_L": round(statistics.median(per), 2),
        "cpu_ms_per_image": round(cpu * 1000 / max(1, images), 2),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Run the benchmark; the report as a dict."""
    sizes = [parse_size(s.strip()) for s in args.sizes.split(",") if s.strip()]
    report: dict[str, Any] = {"builtin": bench_builtin(sizes, args.repeats)}
    if not args.skip_litellm:
        from tests.fakes.provider import spawn_fake_provider, stop_process

        proc, base_url = spawn_fake_provider(latency=args.latency)
        try:
            report["litellm"] = asyncio.run(_bench_litellm(args, base_url))
        finally:
            stop_process(proc)
    return report


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The benchmark's options ."""
    p.add_argument("--sizes", default="256x256,512x512", help="renderer sizes, comma list")
    p.add_argument("--repeats", type=int, default=30, help="renderer images per size")
    p.add_argument("--latency", type=float, default=0.2, help="fake provider seconds per call")
    p.add_argument("--prompts", type=int, default=8, help="concurrent generations (litellm)")
    p.add_argument("--images", type=int, default=4, help="images per generation")
    p.add_argument("--size", default="256x256", help="image size asked of the fake")
    p.add_argument("--concurrency", type=int, default=4, help="the backend's concurrency cap")
    p.add_argument("--skip-litellm", action="store_true", help="only time the renderer")
    p.add_argument("--out", type=Path, help="also write the JSON report here")


def run_args(args: argparse.Namespace) -> int:
    """Print (and optionally save) the report; 2 on bad options."""
    try:
        sizes = [parse_size(s.strip()) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        sizes = []
    if not sizes or any(w < 16 or h < 16 for w, h in sizes):
        print(
            f"benchmarks.t2i: --sizes must be WIDTHxHEIGHT values (16 or more), got {args.sizes!r}",
            file=sys.stderr,
        )
        return 2
    if min(args.repeats, args.prompts, args.images, args.concurrency) < 1 or args.latency <= 0:
        print(
            "benchmarks.t2i: --repeats, --prompts, --images and --concurrency must be at least 1 "
            "and --latency above 0",
            file=sys.stderr,
        )
        return 2
    report = run(args)
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m benchmarks.t2i``."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.t2i", description=__doc__.split("\n\n")[0]
    )
    add_arguments(parser)
    return run_args(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
