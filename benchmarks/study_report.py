"""``judge study report-bench``: time ``judge study report`` on synthetic results.

Prompters get a known skill and backends a known offset; every (task, prompter, backend) item
draws its four measures and a few checks around them, and about 5% of the items fail or are
blocked. The timed part is what ``judge study report DIR`` does: read the folder, compute,
write ``report.json``, ``report.md`` and (unless ``--no-plots``) the plots. The median wall and
CPU time of ``--repeats`` runs are reported, with the Spearman correlation of the prompters'
BT scores with their true skill as a sanity check.

Example:
    >>> out = run_bench(rows=400, repeats=1, n_boot=50, n_perm=200, plots=False)
    >>> out["rows"], out["spearman_vs_truth"] > 0.5
    (400, True)
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

from eval.studies.report.build import write_report
from eval.studies.report.options import DEFAULT_BOOT, DEFAULT_PERM

PRIMITIVES = ("quantity", "text", "spatial_relation", "attribute_binding", "implicit_style")
FAILURES = (
    ("blocked", "content policy"),
    ("generation_failed", "timeout"),
    ("judge_failed", "bad json"),
    ("prompt_failed", "refused"),
)


def synthesise(folder: Path, rows: int, n_prompters: int, n_backends: int, seed: int) -> dict:
    """Write ``results.jsonl`` and ``study.json`` into ``folder``; returns the true skills."""
    rng = np.random.default_rng(seed)
    n_tasks = max(1, rows // (n_prompters * n_backends))
    skill = rng.normal(0, 0.6, n_prompters)
    offset = rng.normal(0, 0.3, n_backends)
    prompters = [
        {
            "id": f"p{i:02d}",
            "kind": "human" if i % 4 == 0 else "mllm",
            "condition": "skilled" if i % 2 else "novice",
        }
        for i in range(n_prompters)
    ]
    backends = [{"id": f"b{j}"} for j in range(n_backends)]
    lines = []
    for t in range(n_tasks):
        cat = ("OE", "CO", "IM")[t % 3]
        for i, p in enumerate(prompters):
            for j, b in enumerate(backends):
                if len(lines) >= rows:
                    break
                z = skill[i] + offset[j] + rng.normal(0, 0.8, 4)
                row = {
                    "task_id": f"t{t:04d}",
                    "category": cat,
                    "primitives": [],
                    "prompter": p["id"],
                    "prompter_kind": p["kind"],
                    "condition": p["condition"],
                    "backend": b["id"],
                }
                if rng.random() < 0.05:
                    status, reason = FAILURES[int(rng.integers(len(FAILURES)))]
                    lines.append({**row, "status": status, "reason": reason, "summary": None})
                    continue
                subj = np.clip(np.round(3 + z[:2], 1), 1, 5)
                rate = np.clip(np.round(60 + 15 * z[2:], 1), 0, 100)
                checks = [
                    {
                        "id": f"c{k}",
                        "primitive": PRIMITIVES[(t + k) % len(PRIMITIVES)],
                        "prompt": bool(rng.random() < rate[0] / 100),
                        "image": bool(rng.random() < rate[1] / 100),
                    }
                    for k in range(4)
                ]
                summary = {
                    "subjective_prompt": float(subj[0]),
                    "subjective_image": float(subj[1]),
                    "objective_prompt_rate": float(rate[0]),
                    "objective_image_rate": float(rate[1]),
                    "checks": checks,
                }
                lines.append({**row, "status": "scored", "reason": None, "summary": summary})
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "results.jsonl", "w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(x) + "\n" for x in lines)
    study = {"study": {"name": "synthetic"}, "prompters": prompters, "backends": backends}
    (folder / "study.json").write_text(json.dumps(study), encoding="utf-8")
    return {p["id"]: float(s) for p, s in zip(prompters, skill, strict=True)}


def run_bench(
    *,
    rows: int = 10_000,
    prompters: int = 10,
    backends: int = 4,
    repeats: int = 3,
    n_boot: int = DEFAULT_BOOT,
    n_perm: int = DEFAULT_PERM,
    seed: int = 0,
    plots: bool = True,
) -> dict:
    """Synthesise ``rows`` results, then time the full report ``repeats`` times."""
    walls, cpus = [], []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        truth = synthesise(folder, rows, prompters, backends, seed)
        for _ in range(repeats):
            c0, t0 = time.process_time(), time.perf_counter()
            report = write_report(folder, n_boot=n_boot, n_perm=n_perm, seed=seed, plots=plots)
            cpus.append(time.process_time() - c0)
            walls.append(time.perf_counter() - t0)
    board = report["leaderboard"]["subjective_prompt"]["models"]
    scores = {m["model"]: m["score"] for m in board}
    names = sorted(truth)
    rho = spearmanr([truth[n] for n in names], [scores[n] for n in names]).statistic
    return {
        "rows": report["study"]["n_lines"],
        "prompters": prompters,
        "backends": backends,
        "tasks": report["study"]["tasks"],
        "bootstrap": n_boot,
        "permutations": n_perm,
        "plots": plots,
        "repeats": repeats,
        "median_wall_s": round(statistics.median(walls), 3),
        "median_cpu_s": round(statistics.median(cpus), 3),
        "wall_s": [round(w, 3) for w in walls],
        "spearman_vs_truth": round(float(rho), 4),
    }


def main(argv: list[str] | None = None) -> int:
    """Time the report on synthetic results and print the timing (text, or JSON)."""
    p = argparse.ArgumentParser(prog="python -m benchmarks.study_report", description=__doc__)
    p.add_argument("--rows", type=int, default=10_000, help="results lines to synthesise")
    p.add_argument("--prompters", type=int, default=10)
    p.add_argument("--backends", type=int, default=4)
    p.add_argument("--repeats", type=int, default=3, help="timed runs (the median is reported)")
    p.add_argument("--bootstrap", type=int, default=DEFAULT_BOOT)
    p.add_argument("--permutations", type=int, default=DEFAULT_PERM)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-plots", action="store_true", help="time the report without figures")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if min(args.rows, args.repeats, args.permutations, args.backends) < 1 or args.prompters < 2:
        print(
            "benchmarks.study_report: need rows, repeats, permutations, backends >= 1 and "
            "prompters >= 2",
            file=sys.stderr,
        )
        return 2
    if args.bootstrap < 0:
        print("benchmarks.study_report: --bootstrap must be 0 or more", file=sys.stderr)
        return 2
    out = run_bench(
        rows=args.rows,
        prompters=args.prompters,
        backends=args.backends,
        repeats=args.repeats,
        n_boot=args.bootstrap,
        n_perm=args.permutations,
        seed=args.seed,
        plots=not args.no_plots,
    )
    if args.json:
        print(json.dumps(out))
    else:
        print(
            f"report on {out['rows']} results ({out['prompters']} prompters × "
            f"{out['backends']} backends × {out['tasks']} tasks, bootstrap {out['bootstrap']}, "
            f"permutations {out['permutations']}, plots {'on' if out['plots'] else 'off'}): "
            f"median {out['median_wall_s']} s wall, {out['median_cpu_s']} s CPU over "
            f"{out['repeats']} runs; BT vs true skill ρ = {out['spearman_vs_truth']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
