"""``python -m benchmarks.metric_clusters``: time the significance clusters of many metrics.

Synthetic data of EvalMuse-40k's size by default: 40,000 items rated 1–5 by people, 20
generators, and 20 metrics that agree with the people to different degrees (the human mean
plus noise of increasing spread). The timed part is what ``judge meta-eval`` does for the
comparison's significance (:mod:`eval.metaeval.compare`): the items' ranks, the paired
permutation test of every pair of metrics (190 pairs) with ``--resamples`` swap patterns,
Benjamini–Hochberg,
wins/losses and clusters; at item level (difference of Spearman ρ) and at system level
(difference of Pearson r of the generators' means, swaps over items). Each is repeated
``--repeats`` times; the median wall and CPU time are reported (CPU is the figure to trust on
a shared, busy machine).

Example:
    >>> out = run_bench(n_items=500, n_metrics=4, n_systems=5, resamples=100, repeats=1)
    >>> out["item"]["clusters"]["m00"], out["pairs"]
    (1, 6)
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

import numpy as np

from eval.kit.stats import permutation
from eval.kit.stats.sig_clusters import adjust_matrix, clusters, wins_losses


def synthetic(
    n_items: int, n_metrics: int, n_systems: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(metric scores (m, n), human means (n), system of each item (n))."""
    rng = np.random.default_rng(seed)
    systems = rng.integers(0, n_systems, n_items)
    quality = rng.normal(0, 0.6, n_systems)[systems] + rng.normal(0, 1.0, n_items)
    human = np.clip(np.round((3 + quality + rng.normal(0, 0.5, (3, n_items))) * 1.0), 1, 5)
    mean = human.mean(0)
    spread = np.linspace(0.6, 3.0, n_metrics)
    scores = mean + rng.normal(0, 1, (n_metrics, n_items)) * spread[:, None]
    return scores, mean, systems


def _timed(fn: Any, repeats: int) -> tuple[Any, float, float]:
    walls, cpus, out = [], [], None
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return out, statistics.median(walls), statistics.median(cpus)


def _summary(names: list[str], res: permutation.PermutationResult) -> dict[str, Any]:
    adj = adjust_matrix(res.p, "bh")
    return {"clusters": clusters(res.corr, adj, names), "wins": wins_losses(res.corr, adj, names)}


def run_bench(
    *,
    n_items: int = 40_000,
    n_metrics: int = 20,
    n_systems: int = 20,
    resamples: int = 1000,
    repeats: int = 3,
    seed: int = 0,
) -> dict[str, Any]:
    """Time the clusters at both levels; return the timings and the item-level clusters."""
    scores, human, systems = synthetic(n_items, n_metrics, n_systems, seed)
    names = [f"m{i:02d}" for i in range(n_metrics)]

    def item() -> dict[str, Any]:
        res = permutation.item_level(
            permutation.rank_transform(scores),
            permutation.rank_transform(human),
            n_resamples=resamples,
            seed=seed,
        )
        return _summary(names, res)

    def system() -> dict[str, Any]:
        res = permutation.system_level(scores, human, systems, n_resamples=resamples, seed=seed)
        return _summary(names, res)

    item_out, item_wall, item_cpu = _timed(item, repeats)
    sys_out, sys_wall, sys_cpu = _timed(system, repeats)
    return {
        "n_items": n_items,
        "n_metrics": n_metrics,
        "pairs": n_metrics * (n_metrics - 1) // 2,
        "n_systems": n_systems,
        "resamples": resamples,
        "repeats": repeats,
        "item": {"wall_s": item_wall, "cpu_s": item_cpu, **item_out},
        "system": {"wall_s": sys_wall, "cpu_s": sys_cpu, **sys_out},
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.metric_clusters``: print the median times (or JSON)."""
    p = argparse.ArgumentParser(prog="python -m benchmarks.metric_clusters", description=__doc__)
    p.add_argument("--items", type=int, default=40_000)
    p.add_argument("--metrics", type=int, default=20)
    p.add_argument("--systems", type=int, default=20)
    p.add_argument("--resamples", type=int, default=1000)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.items < 3 or args.metrics < 2 or args.systems < 3 or args.resamples < 1:
        p.error("need at least 3 items, 2 metrics, 3 systems and 1 resample")
    out = run_bench(
        n_items=args.items,
        n_metrics=args.metrics,
        n_systems=args.systems,
        resamples=args.resamples,
        repeats=max(1, args.repeats),
        seed=args.seed,
    )
    if args.json:
        print(json.dumps(out))
        return 0
    print(
        f"{out['n_metrics']} metrics ({out['pairs']} pairs) × {out['n_items']} items, "
        f"{out['resamples']} resamples, median of {out['repeats']}:"
    )
    for level in ("item", "system"):
        r = out[level]
        top = sorted(m for m, k in r["clusters"].items() if k == 1)
        print(
            f"  {level:6} level: {r['wall_s']:.2f} s wall, {r['cpu_s']:.2f} s CPU; "
            f"{max(r['clusters'].values())} clusters, rank 1: {', '.join(top)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
