"""Pairwise accuracy with ties (eval.kit.stats.pairwise) against a pair-by-pair count, on the
grouped path (few score values, like a judge's) and the blocked path (a continuous metric),
and Kendall's τ from scipy where nothing ties."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from eval.kit.stats import pairwise_accuracy, tie_calibrated_accuracy


def by_pairs(metric: list[float], human: list[float], eps: float) -> float:
    pairs = list(itertools.combinations(range(len(metric)), 2))
    ok = 0
    for i, j in pairs:
        dm, dh = metric[i] - metric[j], human[i] - human[j]
        m_tie, h_tie = abs(dm) <= eps + 1e-9, abs(dh) < 1e-9
        ok += (m_tie and h_tie) or (not m_tie and not h_tie and dm * dh > 0)
    return ok / len(pairs)


def every_threshold(metric: np.ndarray, human: np.ndarray) -> float:
    """The best accuracy over every metric gap as threshold, with full pair matrices."""
    i, j = np.triu_indices(len(metric), 1)
    dm, dh = metric[i] - metric[j], human[i] - human[j]
    h_tie = np.abs(dh) < 1e-9
    best = 0.0
    for eps in np.unique(np.concatenate([[0.0], np.abs(dm)])):
        m_tie = np.abs(dm) <= eps + 1e-9
        best = max(best, float(np.mean((m_tie & h_tie) | (~m_tie & ~h_tie & (dm * dh > 0)))))
    return best


@pytest.mark.parametrize("kind", ["discrete", "continuous"])
@pytest.mark.parametrize("seed", range(6))
def test_both_paths_match_the_pair_by_pair_count(kind: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 70  # the continuous metric has > 64 distinct values: the blocked path
    human = rng.integers(3, 16, n) / 3  # means of three 1–5 ratings: many ties
    metric = rng.integers(1, 6, n).astype(float) if kind == "discrete" else rng.normal(0, 1, n)
    for eps in (0.0, 0.5, 1.0):
        assert pairwise_accuracy(metric, human, eps) == pytest.approx(
            by_pairs(list(metric), list(human), eps)
        )
    acc, eps = tie_calibrated_accuracy(metric, human)
    assert acc == pytest.approx(every_threshold(metric, human))
    assert acc == pytest.approx(by_pairs(list(metric), list(human), eps))


def test_without_ties_it_is_kendall_tau_rescaled() -> None:
    rng = np.random.default_rng(7)
    metric, human = rng.normal(size=50), rng.normal(size=50)
    tau = stats.kendalltau(metric, human).statistic
    assert pairwise_accuracy(metric, human) == pytest.approx((1 + tau) / 2)


def test_too_few_items_and_missing_values() -> None:
    assert pairwise_accuracy([3], [4]) is None
    assert tie_calibrated_accuracy([], []) == (None, 0.0)
    assert pairwise_accuracy([1, None, 3], [1, 2, 3]) == 1.0  # type: ignore[list-item]
