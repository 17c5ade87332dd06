"""Cold-start benchmark: fresh ``judge score`` processes against the fake provider.

Each run is a new Python process scoring a CO submission (N checkpoints, one 1024² image)
with ``judge score`` against the built-in fake provider at per-call latency L (run through
:mod:`benchmarks.support.spans`, which times the model calls and changes nothing else). It reports,
per process, as multiples of L:

- **graph run** (``model_x_L``): the Result's ``usage.latency_s``, the graph run from its
  start to its end, every model call included — the figure the 1.5 × L target is judged on;
- **model-call span** (``span_x_L``): from the first model call's start to the last one's end;
- the process's wall time (seconds: imports, image decoding and output included).

A process whose first model calls stall on lazy imports shows up as a multiple well above the
warm figure.

Example:
    >>> rows = [{"model_x_L": 1.1, "span_x_L": 1.0}, {"model_x_L": 1.7, "span_x_L": 1.6}]
    >>> summarize(rows, target=1.5)["within_target"]
    '1/2'
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tqdm import tqdm

from benchmarks.support.spans import parse_marker

_REPO_ROOT = Path(__file__).resolve().parents[2]
TARGET_X_L = 1.5


def _env() -> dict[str, str]:
    """This environment without ``JUDGE_*`` (the flags configure the run), repo importable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(_REPO_ROOT), env.get("PYTHONPATH")) if p)
    env.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return env


def one_process(path: Path, base_url: str, latency: float, timeout: float = 300.0) -> dict:
    """Run ``judge score`` once in a fresh process; its graph run and model-call span as
    multiples of L, and its wall time."""
    cmd = [
        sys.executable, "-m", "benchmarks.support.spans", "score", str(path), "--model",
        "openai/fake-judge", "--api-base", base_url, "--api-key", "bench", "--compact",
    ]  # fmt: skip
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"judge score exited {proc.returncode}; stderr:\n{proc.stderr[-2000:]}")
    result = json.loads(proc.stdout)
    model_s = float(result["usage"]["latency_s"])
    spans = parse_marker(proc.stderr) or {}
    span_s = float(spans.get("span_s") or 0.0)
    return {
        "model_s": round(model_s, 3),
        "model_x_L": round(model_s / latency, 3),
        "span_s": round(span_s, 3),
        "span_x_L": round(span_s / latency, 3),
        "wall_s": round(wall, 2),
        "calls": result["usage"]["llm_calls"],
        "status": result["status"],
    }


def summarize(rows: list[dict], target: float = TARGET_X_L) -> dict:
    """How many processes kept the graph run (and, separately, the model-call span) within
    ``target`` × L, and the spread of each."""
    xs = [r["model_x_L"] for r in rows]
    spans = [r.get("span_x_L", 0.0) for r in rows]
    return {
        "within_target": f"{sum(x <= target for x in xs)}/{len(xs)}",
        "target_x_L": target,
        "median_x_L": round(statistics.median(xs), 3),
        "max_x_L": round(max(xs), 3),
        "per_process_x_L": xs,
        "span_within_target": f"{sum(x <= target for x in spans)}/{len(spans)}",
        "span_median_x_L": round(statistics.median(spans), 3),
        "span_max_x_L": round(max(spans), 3),
        "per_process_span_x_L": spans,
    }


def run_cold_start(submission: dict, base_url: str, latency: float, processes: int) -> dict:
    """Score ``submission`` in ``processes`` fresh processes; the summary plus raw rows."""
    with tempfile.TemporaryDirectory(prefix="judge-cold-") as tmp:
        path = Path(tmp) / "submission.json"
        path.write_text(json.dumps(submission), encoding="utf-8")
        rows = [
            one_process(path, base_url, latency)
            for _ in tqdm(range(processes), desc="cold start", file=sys.stderr, leave=False)
        ]
    out = summarize(rows)
    out["processes"] = processes
    out["median_wall_s"] = round(statistics.median(r["wall_s"] for r in rows), 2)
    out["calls"] = rows[0]["calls"]
    return out


def render(report: dict) -> str:
    """One paragraph for the bench table."""
    return (
        f"cold start ({report['processes']} fresh `judge score` processes, {report['calls']} "
        f"calls each), as multiples of L:\n"
        f"  graph run (usage.latency_s; target <= {report['target_x_L']} x L): within target "
        f"in {report['within_target']}; median {report['median_x_L']}, max {report['max_x_L']}"
        "\n    per process: " + " ".join(f"{x:.2f}" for x in report["per_process_x_L"]) + "\n"
        f"  model-call span (first call's start to last call's end): <= {report['target_x_L']}"
        f" x L in {report['span_within_target']}; median {report['span_median_x_L']}, max "
        f"{report['span_max_x_L']}\n    per process: "
        + " ".join(f"{x:.2f}" for x in report["per_process_span_x_L"])
        + f"\n  median process wall time {report['median_wall_s']} s"
    )
