"""Benchmark of the trust statistics on the simulated judge (benchmarks/trust_sim.py).

``python -m benchmarks.trust [--seeds 100] [--n-cal 1000] [--n-held 20000]`` runs, per seed,
one judge of plain agreement 0.80, a cascade (cheap 0.75, strong 0.85) against its strong
judge alone, and rating intervals of level 0.9, each calibrated on ``--n-cal`` items (target
0.90, delta 0.10) and measured on ``--n-held`` held-out items, and prints one line per check
with the issue 45 bar beside it. ``--json`` prints the figures as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from tqdm import tqdm

from benchmarks.trust_sim import simulate, simulate_ratings
from eval.trust.conformal import rating_interval
from eval.trust.sequence import calibrate_kind, evaluate
from judge.trust.apply import interval

TARGET, DELTA = 0.9, 0.1


def one_judge(seed: int, n_cal: int, n_held: int) -> tuple[bool, float]:
    """(target met on held-out items, held-out coverage) of one seed."""
    cal, held = simulate(n_cal + n_held, {"judge": 0.80}, seed).split(n_cal)
    chosen = calibrate_kind(cal.confidence, cal.agree, target=TARGET, delta=DELTA).chosen
    if chosen is None:
        return True, 0.0
    point = evaluate(held.confidence, held.agree, chosen.thresholds, DELTA)
    return bool(point.agreement >= TARGET), point.coverage


def cascade(seed: int, n_cal: int, n_held: int) -> dict[str, float]:
    """The cascade and the strong judge alone on one seed."""
    cal, held = simulate(n_cal + n_held, {"cheap": 0.75, "strong": 0.85}, seed).split(n_cal)
    both = calibrate_kind(cal.confidence, cal.agree, target=TARGET, delta=DELTA).chosen
    alone = calibrate_kind(cal.confidence[1:], cal.agree[1:], target=TARGET, delta=DELTA).chosen
    out = {"met": 1.0, "coverage": 0.0, "strong_calls": 1.0, "alone_coverage": 0.0}
    if alone is not None:
        pa = evaluate(held.confidence[1:], held.agree[1:], alone.thresholds, DELTA)
        out["alone_coverage"] = pa.coverage
    if both is not None:
        pc = evaluate(held.confidence, held.agree, both.thresholds, DELTA)
        out.update(met=float(pc.agreement >= TARGET), coverage=pc.coverage,
                   strong_calls=pc.calls[1] / pc.n)  # fmt: skip
    return out


def ratings(seed: int, n_cal: int, n_held: int) -> float:
    """Share of held-out human ratings inside their level-0.9 interval."""
    judge, human, _ = simulate_ratings(n_cal + n_held, seed)
    spec = rating_interval(judge[:n_cal], human[:n_cal], alpha=0.1)
    assert spec is not None
    bounds = np.array([interval(float(s), spec) for s in judge[n_cal:]])
    return float(((human[n_cal:] >= bounds[:, 0]) & (human[n_cal:] <= bounds[:, 1])).mean())


def run(seeds: int, n_cal: int, n_held: int) -> dict[str, float]:
    singles, cascades, covered = [], [], []
    for seed in tqdm(range(seeds), desc="seeds", unit="seed"):
        singles.append(one_judge(seed, n_cal, n_held))
        cascades.append(cascade(seed, n_cal, n_held))
        covered.append(ratings(seed, n_cal, min(n_held, 5000)))
    return {
        "seeds": seeds, "n_cal": n_cal, "n_held": n_held,
        "one_judge_met_share": float(np.mean([m for m, _ in singles])),
        "one_judge_coverage": float(np.mean([c for _, c in singles])),
        "cascade_met_share": float(np.mean([c["met"] for c in cascades])),
        "cascade_coverage": float(np.mean([c["coverage"] for c in cascades])),
        "strong_alone_coverage": float(np.mean([c["alone_coverage"] for c in cascades])),
        "cascade_strong_call_share": float(np.mean([c["strong_calls"] for c in cascades])),
        "interval_coverage": float(np.mean(covered)),
        "interval_coverage_min": float(np.min(covered)),
        "interval_coverage_max": float(np.max(covered)),
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--n-cal", type=int, default=1000)
    parser.add_argument("--n-held", type=int, default=20000)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    start = time.monotonic()
    r = run(args.seeds, args.n_cal, args.n_held)
    r["seconds"] = round(time.monotonic() - start, 1)
    if args.json:
        print(json.dumps(r))
        return 0
    print(f"{r['seeds']} seeds, {r['n_cal']} calibration items, {r['n_held']} held out, "
          f"target {TARGET}, delta {DELTA} ({r['seconds']} s)")  # fmt: skip
    print(f"one judge (0.80): target met in {r['one_judge_met_share']:.0%} of seeds (bar 90%), "
          f"kept {r['one_judge_coverage']:.1%} (bar 60%)")  # fmt: skip
    print(
        f"cascade (0.75 -> 0.85): target met in {r['cascade_met_share']:.0%}, coverage "
        f"{r['cascade_coverage']:.1%} vs strong alone {r['strong_alone_coverage']:.1%}, "
        f"strong judge on {r['cascade_strong_call_share']:.1%} of items (bar <= 60%)"
    )
    print(f"rating intervals (level 0.9): hold {r['interval_coverage']:.3f} of held-out ratings "
          f"(bar 0.88-0.94; seeds {r['interval_coverage_min']:.3f}-"
          f"{r['interval_coverage_max']:.3f})")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
