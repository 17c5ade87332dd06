"""``python -m benchmarks.study [--latency L]``: the study runner's wall time against fakes.

The issue's study: 12 tasks (4 OE, 4 CO, 4 IM) × 2 MLLM prompters (novice, skilled) × 1
backend × 4 images, the prompters, the image backend and the judge all served by one fake
OpenAI-compatible provider in its own process answering after ``L`` seconds. Each item's
critical path is prompter + generation + judge ≈ 3 L; the target is a wall time of at most 6 L
at the runner's default concurrency. Prints wall, wall / L and the runner's CPU time.

Example:
    $ python -m benchmarks.study --latency 2
    $ python -m benchmarks.study --latency 1 --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from skills.primitives import PRIMITIVES as PRIMS

CATEGORIES = ("OE", "CO", "IM")


def parser() -> argparse.ArgumentParser:
    """The benchmark's options."""
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.study", description="time a 12×2×1×4 study against fakes"
    )
    p.add_argument(
        "--latency",
        type=float,
        default=2.0,
        metavar="L",
        help="seconds every fake call takes (default 2)",
    )
    p.add_argument("--tasks", type=int, default=12, help="tasks (a multiple of 3; default 12)")
    p.add_argument("--images", type=int, default=4, help="images per prompt (default 4)")
    p.add_argument("--size", default="512x512", help="image size the fake backend draws")
    p.add_argument(
        "--route",
        choices=["openai", "hosted_vllm"],
        default="openai",
        help="litellm route of the prompter and judge models (hosted_vllm: the lighter one "
        "for OpenAI-compatible servers)",
    )
    p.add_argument("--json", action="store_true", help="one JSON object instead of text")
    return p


def write_suite(folder: Path, n_tasks: int) -> Path:
    """A synthetic suite: n tasks split over OE/CO/IM, two checks each, IM with a target."""
    img = Image.new("RGB", (256, 256), "white")
    ImageDraw.Draw(img).ellipse((64, 64, 192, 192), fill="teal")
    img.save(folder / "target.png")
    rows = []
    for i in range(n_tasks):
        cat = CATEGORIES[i % 3]
        p1, p2 = PRIMS[i % 9], PRIMS[(i + 4) % 9]
        if cat == "IM" and p1 in ("abstract_intent", "audience_intent", "semantic_negation"):
            p1 = "attribute_binding"
        rows.append(
            {
                "id": f"{cat.lower()}_{i + 1}",
                "category": cat,
                "brief": f"Task {i + 1}: a poster of a lighthouse on a cliff, {i + 2} gulls, "
                "the word 'HARBOUR' at the top, no people.",
                "target_image": "target.png" if cat == "IM" else None,
                "tags": {"primitives": sorted({p1, p2})},
                "checklist": [
                    {
                        "id": "c1",
                        "primitive": p1,
                        "prompt_check": "The prompt names a lighthouse.",
                        "image_check": "A lighthouse is visible.",
                    },
                    {
                        "id": "c2",
                        "primitive": p2,
                        "prompt_check": f"The prompt asks for {i + 2} gulls.",
                        "image_check": f"There are {i + 2} gulls.",
                    },
                ],
            }
        )
    path = folder / "tasks.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_study(
    folder: Path, base_url: str, images: int, size: str = "512x512", route: str = "openai"
) -> Path:
    """The bench study file: two fake MLLM prompters, one fake image backend, a fake judge."""
    text = f"""
[study]
name = "bench"
tasks = "tasks.jsonl"
images_per_prompt = {images}

[[prompters]]
id = "fake-novice"
kind = "mllm"
model = "{route}/fake-prompter"
condition = "novice"
api_base = "{base_url}"

[[prompters]]
id = "fake-skilled"
kind = "mllm"
model = "{route}/fake-prompter"
condition = "skilled"
api_base = "{base_url}"

[[backends]]
id = "fake-images"
model = "openai/fake-image"
api_base = "{base_url}"
size = "{size}"

[judge]
model = "{route}/fake-judge"
api_base = "{base_url}"
"""
    path = folder / "study.toml"
    path.write_text(text, encoding="utf-8")
    return path


async def _timed(runner: Any) -> tuple[Any, float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    summary = await runner.run()
    return summary, time.perf_counter() - wall, time.process_time() - cpu


def bench(
    latency: float,
    n_tasks: int = 12,
    images: int = 4,
    size: str = "512x512",
    route: str = "openai",
) -> dict[str, Any]:
    """Run the bench study once; wall and CPU seconds of the run (set-up excluded)."""
    import os

    os.environ.setdefault("OPENAI_API_KEY", "fake-key")
    from eval.kit.client import LocalJudge
    from eval.studies.config import cfg_settings, load_study
    from eval.studies.runner import RunOptions, StudyRunner
    from eval.studies.suite import load_suite
    from tests.fakes.provider import spawn_fake_provider, stop_process

    proc, base_url = spawn_fake_provider(latency=latency)
    try:
        with tempfile.TemporaryDirectory(prefix="study-bench-") as tmp:
            folder = Path(tmp)
            write_suite(folder, n_tasks)
            cfg = load_study(write_study(folder, base_url, images, size, route))
            tasks = load_suite(cfg.tasks_path, check_images=False)
            call = LocalJudge(cfg_settings(cfg, api_key="fake-key"))
            call.judge.wait_warm(timeout_s=120)
            opts = RunOptions(out=folder / "out", progress=False)
            runner = StudyRunner(cfg, opts, tasks, call)
            summary, wall, cpu = asyncio.run(_timed(runner))
    finally:
        stop_process(proc)
    fake_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "latency_s": latency,
        "size": size,
        "route": route,
        "items": summary.total,
        "statuses": summary.counts,
        "wall_s": round(wall, 2),
        "wall_over_latency": round(wall / latency, 2) if latency > 0 else None,
        "target_wall_over_latency": 6.0,
        "cpu_s": round(cpu, 2),
        "fake_provider_cpu_s": round(fake_cpu.ru_utime + fake_cpu.ru_stime, 2),
        "usage": summary.usage,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures; returns the exit code."""
    args = parser().parse_args(argv)
    if args.latency <= 0:
        print("benchmarks.study: --latency must be more than 0", file=sys.stderr)
        return 2
    if args.tasks < 3 or args.tasks % 3 or not 1 <= args.images <= 8:
        print("benchmarks.study: --tasks must be a multiple of 3; --images 1..8", file=sys.stderr)
        return 2
    out = bench(args.latency, args.tasks, args.images, args.size, args.route)
    if args.json:
        print(json.dumps(out))
        return 0
    calls = ", ".join(f"{s} {u['calls']}" for s, u in out["usage"].items())
    print(
        f"{out['items']} items {out['statuses']} at L = {out['latency_s']} s: "
        f"wall {out['wall_s']} s = {out['wall_over_latency']} L (target ≤ 6 L), "
        f"CPU {out['cpu_s']} s (fake provider {out['fake_provider_cpu_s']} s); calls: {calls}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
