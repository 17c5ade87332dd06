"""Hybrid mean ratings (eval/kit/stats/hybrid_means.py) on simulated ratings with known truth."""

from __future__ import annotations

import numpy as np
import pytest

from eval.kit.stats.hybrid_means import hybrid_means


@pytest.mark.slow
def test_hybrid_means_cover_the_truth_over_seeds():
    """Coverage of the hybrid mean over 150 simulated campaigns (tolerance 0.92–0.98)."""
    hits = []
    for seed in range(150):
        rng = np.random.default_rng(seed)
        true = rng.normal(3.2, 0.8, 2000)
        judge = true + 0.5 + rng.normal(0, 0.4, 2000)  # biased, informative
        rated = rng.random(2000) < 0.1
        human = [{"item": i, "group": "m", "rating": true[i] + rng.normal(0, 0.3)}
                 for i in np.flatnonzero(rated)]  # fmt: skip
        (row,) = hybrid_means(human, [{"item": i, "group": "m", "score": judge[i]}
                                      for i in range(2000)])  # fmt: skip
        hits.append(row["ci95"][0] <= 3.2 <= row["ci95"][1])
    assert 0.92 <= np.mean(hits) <= 0.98


def test_items_without_a_judge_score_are_counted_and_bad_numbers_named():
    human = [{"item": f"i{k}", "group": "m", "rating": k % 5 + 1} for k in range(12)]
    judge = [{"item": f"i{k}", "group": "m", "score": k % 5 + 1} for k in range(10)]
    (row,) = hybrid_means(human, judge)
    assert row["human_without_judge"] == 2 and row["n_human_items"] == 10
    assert row["lam"] == 0.0  # no judge-only item: the human mean itself
    with pytest.raises(ValueError, match="judge score 1: field 'score' must be a number"):
        hybrid_means(
            human, [{"item": "i0", "group": "m", "score": 3}, {"item": "i1", "group": "m"}]
        )
