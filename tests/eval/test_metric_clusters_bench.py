"""The shipped benchmark ``python -m benchmarks.metric_clusters``: its clusters are the ones
the comparison computes, recomputed pair by pair, and its command line prints both levels."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks import metric_clusters as bench
from eval.kit.stats.permutation import item_level, rank_transform
from tests.eval.kit.test_permutation import brute_bh, brute_ranks


def test_the_clusters_timed_are_the_ones_recomputed() -> None:
    out = bench.run_bench(n_items=2000, n_metrics=5, n_systems=6, resamples=300, repeats=2)
    assert out["pairs"] == 10 and out["repeats"] == 2 and out["item"]["cpu_s"] > 0
    scores, human, _ = bench.synthetic(2000, 5, 6)
    res = item_level(rank_transform(scores), rank_transform(human), n_resamples=300, seed=0)
    pairs = [(a, b) for a in range(5) for b in range(a + 1, 5)]
    adjusted = brute_bh([res.p[a, b] for a, b in pairs])
    pm = np.eye(5)
    for (a, b), q in zip(pairs, adjusted, strict=True):
        pm[a, b] = pm[b, a] = q
    ranks = brute_ranks(list(res.corr), pm)
    assert [out["item"]["clusters"][f"m{i:02d}"] for i in range(5)] == ranks
    assert ranks[0] == 1 and ranks[-1] > 1  # noise 0.6 against 3.0: told apart on 2,000 items


def test_the_command_line_prints_both_levels(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--items", "600", "--metrics", "3", "--systems", "5", "--resamples", "50"]
    assert bench.main([*args, "--repeats", "1"]) == 0
    text = capsys.readouterr().out
    assert "3 metrics (3 pairs) × 600 items, 50 resamples" in text
    assert "item   level:" in text and "system level:" in text
    assert bench.main([*args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["system"]["clusters"]
    with pytest.raises(SystemExit):
        bench.main(["--metrics", "1"])
