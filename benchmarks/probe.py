"""``python -m benchmarks.probe``: a tree of the paper's defaults (13 nodes, 65 inputs,
4 images each) against fakes at latency L, localisation included; the target is at most
25 L of wall time.

The fake LLM and judge (:mod:`tests.fakes.probing_script`, its own process, latency L per call)
plant a failing colour in 2 of every 5 inputs, so 26 bugs get localised; the model under test is
the same fake's images endpoint (latency L per call). The nodes of a level run concurrently, so
the gateway's and the backend's concurrency caps are raised for the run; models are reached
through litellm's ``hosted_vllm/`` route, its lighter client for OpenAI-compatible servers.

Example:
    $ python -m benchmarks.probe --latency 0.5 --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET_FACTOR = 25
KEY_ENV = "PROBE_BENCH_KEY"


def spawn_script(latency: float) -> tuple[subprocess.Popen[str], str]:
    """Start ``python -m tests.fakes.probing_script`` and return it with its base URL."""
    cmd = [sys.executable, "-m", "tests.fakes.probing_script", "--latency", str(latency)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if not line.startswith("READY "):
        proc.kill()
        raise RuntimeError(f"the scripted fake provider did not start (said {line!r})")
    return proc, line.removeprefix("READY ")


async def _run(base_url: str, out: Path, depth: int = 3) -> tuple[dict[str, Any], float]:
    from eval.kit.journal import Journal
    from eval.probing.params import ProbeParams
    from eval.probing.runner import run_probe
    from eval.probing.setup import build_context
    from eval.probing.storage import FileImages
    from eval.t2i import BackendSpec, ImageGenerator
    from judge.config import JudgeSettings
    from judge.engine import Judge

    settings = JudgeSettings(
        model="openai/fake-judge",
        api_base=base_url,
        api_key="bench",
        timeout_s=120,
        llm_concurrency=1024,
        graph_concurrency=4096,
    )
    judge = Judge(settings)
    await asyncio.to_thread(judge.wait_warm)
    spec = BackendSpec(
        id="bench",
        model="openai/fake-image",
        api_base=base_url,
        api_key_env=KEY_ENV,
        concurrency=256,
    )
    params = ProbeParams(topic="animals and objects", backend="bench", depth=depth)
    ctx = build_context(
        params,
        judge,
        ImageGenerator(settings),
        spec,
        Journal(out / "journal.jsonl"),
        FileImages(out),
    )
    start = time.perf_counter()
    tree = await run_probe(ctx)
    wall = time.perf_counter() - start
    return tree, wall


def run_bench(latency: float, depth: int = 3) -> dict[str, Any]:
    """Run the benchmark; the report holds the wall time in L and the calls per stage."""
    os.environ.setdefault(KEY_ENV, "bench")
    proc, base_url = spawn_script(latency)
    try:
        with tempfile.TemporaryDirectory(prefix="probe-bench-") as tmp:
            tree, wall = asyncio.run(_run(base_url, Path(tmp), depth))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    m = tree["metrics"]
    localised = sum(len(f["tests"]) for n in _walk(tree["root"]) for f in n["failures"])
    return {
        "latency_s": latency,
        "wall_s": round(wall, 2),
        "wall_in_L": round(wall / latency, 2),
        "target_in_L": TARGET_FACTOR,
        "within_target": wall <= TARGET_FACTOR * latency,
        "nodes": m["n_nodes"],
        "inputs": m["n_inputs"],
        "images": m["n_images"],
        "bugs": m["bugs"],
        "localisation_subprompts": localised,
        "calls_per_stage": tree["calls"],
    }


def _walk(node: dict[str, Any]) -> list[dict[str, Any]]:
    out = [node]
    for child in node["children"]:
        out += _walk(child)
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the probe benchmark and print its report; 1 when over the target."""
    b = argparse.ArgumentParser(prog="python -m benchmarks.probe", description=__doc__)
    b.add_argument("--latency", type=float, default=0.5, help="seconds per fake model call")
    b.add_argument(
        "--depth",
        type=int,
        default=3,
        choices=[1, 2, 3],
        help="levels of the tree (default 3: the paper's 13 nodes)",
    )
    b.add_argument("--json", action="store_true", help="print the report as JSON")
    args = b.parse_args(argv)
    if args.latency <= 0:
        print("benchmarks.probe: --latency must be above 0 seconds", file=sys.stderr)
        return 2
    report = run_bench(args.latency, args.depth)
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key}: {value}")
    return 0 if report["within_target"] else 1


if __name__ == "__main__":
    sys.exit(main())
