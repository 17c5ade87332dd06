"""Benchmark: ``judge tasks from-posts`` over a synthetic export against a fake provider.

The fake provider runs in its own process at latency ``L`` per call and answers like a
simple model (every thread holds one request with one remark, labelled a failure), so every
text stage runs. Reports wall time as a multiple of ``L``, model calls per post and per
stage, and the stage limits used.

Run:
    python -m benchmarks.posts_pipeline --posts 10000 --latency 0.05
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

SERVE = r"""
import sys, json, re, signal, threading
from tests.fakes.provider import FakeProvider
def answer(body):
    name = body["response_format"]["json_schema"]["name"]
    text = json.dumps(body["messages"])
    if name == "RelevanceGrade":
        return {"grade": 1 if "coffee" in text else 4, "reason": "bench"}
    if name == "Extraction":
        root = re.search(r"post (\S+) \|", text).group(1)
        return {"samples": [{"kind": "prompt", "prompt": "a fox " + root, "image_ids": [],
                 "feedback": ["too yellow"], "post_ids": [root], "quality": "benchmark"}]}
    if name == "FeedbackLabels":
        return {"items": [{"index": 0, "label": "failure", "keyword": "yellow tint",
                           "family": "colour"}]}
    return None
fp = FakeProvider(latency=float(sys.argv[1]))
fp.on(lambda b: "response_format" in b, answer)
fp.start()
print("READY " + fp.base_url, flush=True)
signal.sigwait({signal.SIGTERM, signal.SIGINT})
fp.stop()
"""


def write_export(folder: Path, n: int, prefix: str = "") -> Path:
    """``n`` posts: threads of a request and two replies, and chatter without keywords."""
    folder.mkdir(parents=True, exist_ok=True)
    t0 = datetime(2024, 3, 1, tzinfo=UTC)
    lines = []
    for k in range(n):
        when = (t0 + timedelta(seconds=k)).isoformat()
        if k % 4 == 0:
            row = {"id": f"p{k}", "text": f"my prompt today: a {prefix}fox number {k}",
                   "author": "a"}
        elif k % 4 in (1, 2):
            row = {"id": f"p{k}", "text": f"prompt reply {prefix}{k}: too yellow", "author": "b",
                   "reply_to": f"p{k - k % 4}"}
        else:
            row = {"id": f"p{k}", "text": f"coffee break {k}", "author": "c"}
        lines.append(json.dumps({**row, "created_at": when}))
    path = folder / "posts.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _ideal(made: dict[str, int], cap: int) -> int:
    """Rounds of L the calls need at ``cap`` in flight: relevance, then extract, then
    feedback (each thread's stages are serial; threads overlap)."""
    rounds = -(-made.get("relevance", 0) // cap)
    return rounds + -(-(made.get("extract", 0) + made.get("feedback", 0)) // cap)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--posts", type=int, default=10_000)
    ap.add_argument("--latency", type=float, default=0.05, help="L: seconds per model call")
    ap.add_argument("--concurrency", type=int, default=64, help="model calls in flight at most")
    args = ap.parse_args()
    from eval.evidence.pipeline import DEFAULT_LIMITS, Options, run_pipeline
    from judge.config import JudgeSettings

    proc = subprocess.Popen([sys.executable, "-c", SERVE, str(args.latency)],
                            stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline().strip() if proc.stdout else ""
        if not line.startswith("READY "):
            raise SystemExit(f"fake provider did not start: {line!r}")
        base = line.removeprefix("READY ")
        with tempfile.TemporaryDirectory() as tmp:
            posts = write_export(Path(tmp), args.posts)
            settings = JudgeSettings(model="openai/bench", api_base=base, api_key="x",
                                     llm_concurrency=args.concurrency, max_tokens=1024)
            limits = {k: args.concurrency for k in DEFAULT_LIMITS}
            warm = Options(out=Path(tmp) / "warm", progress=False, shift=False, limits=limits)
            warm_posts = write_export(Path(tmp) / "w", 8, prefix="w")
            asyncio.run(run_pipeline(warm_posts, settings, warm))  # imports, warm-up, plots
            opts = Options(out=Path(tmp) / "out", progress=False, shift=False, limits=limits)
            start = time.perf_counter()
            report = asyncio.run(run_pipeline(posts, settings, opts))
            wall = time.perf_counter() - start
    finally:
        proc.terminate()
        proc.wait(10)
    made = report["calls"]["made"]
    print(json.dumps({
        "posts": args.posts, "latency_s": args.latency, "concurrency": args.concurrency,
        "wall_s": round(wall, 2), "wall_over_L": round(wall / args.latency, 1),
        "calls": sum(made.values()), "calls_per_post": report["calls"]["per_post"],
        "calls_by_stage": {k: v for k, v in made.items() if v},
        "ideal_wall_over_L": _ideal(made, args.concurrency),
        "note": "timed after a warm-up run (imports, provider warm-up, plot backend)",
        "stages": report["stages"],
    }, indent=2))


if __name__ == "__main__":
    main()
