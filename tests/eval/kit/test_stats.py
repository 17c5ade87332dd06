"""The kit's statistics against independent recomputations from their definitions, and
against the code they replaced (the same numbers out of every statistic)."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest

from eval.campaigns.agreement import ratio_ci
from eval.kit.stats import (
    bootstrap_ci,
    kendall_tau_b,
    mean_ci,
    percentile_ci,
    resample_counts,
    resample_indices,
    rounded_ci,
)


def _tau_b_by_definition(x: list[int], y: list[int]) -> float:
    """(C - D) / sqrt((n0 - n1)(n0 - n2)) over every pair; nan when the denominator is 0."""
    c = d = tx = ty = 0
    for i, j in combinations(range(len(x)), 2):
        dx, dy = x[i] - x[j], y[i] - y[j]
        tx += dx == 0
        ty += dy == 0
        if dx and dy:
            c += (dx > 0) == (dy > 0)
            d += (dx > 0) != (dy > 0)
    n0 = len(x) * (len(x) - 1) // 2
    den = math.sqrt((n0 - tx) * (n0 - ty))
    return float("nan") if den == 0 else (c - d) / den


def test_kendall_tau_b_is_its_definition_with_ties() -> None:
    rng = np.random.default_rng(3)
    for _ in range(300):
        n = int(rng.integers(0, 10))
        x, y = rng.integers(0, 4, n).tolist(), rng.integers(0, 4, n).tolist()
        ours, ref = kendall_tau_b(x, y), _tau_b_by_definition(x, y)
        assert math.isnan(ours) == math.isnan(ref)
        if not math.isnan(ref):
            assert ours == pytest.approx(ref, abs=1e-12)


def test_kendall_tau_b_refuses_unequal_lengths() -> None:
    with pytest.raises(ValueError, match="different lengths"):
        kendall_tau_b([1, 2], [1, 2, 3])


def _old_prompt_counts(n: int, n_boot: int, seed: int) -> list[np.ndarray]:
    """eval.leaderboards.resample.prompt_counts as it was before the kit (4M-cell blocks)."""
    rng = np.random.default_rng(seed)
    step = max(1, min(n_boot, 4_000_000 // max(n, 1)))
    out, done = [], 0
    while done < n_boot:
        k = min(step, n_boot - done)
        idx = rng.integers(0, n, size=(k, n))
        flat = (idx + np.arange(k)[:, None] * n).ravel()
        out.append(np.bincount(flat, minlength=k * n).reshape(k, n))
        done += k
    return out


@pytest.mark.parametrize(("n", "n_boot"), [(1, 5), (7, 300), (3001, 2000)])
def test_resample_counts_are_the_old_prompt_draws(n: int, n_boot: int) -> None:
    ours = np.concatenate(list(resample_counts(n, n_boot, 5)))
    assert np.array_equal(ours, np.concatenate(_old_prompt_counts(n, n_boot, 5)))
    assert ours.shape == (n_boot, n) and bool(np.all(ours.sum(axis=1) == n))


def test_resample_indices_blocks_and_determinism() -> None:
    blocks = list(resample_indices(600, 2500, seed=1))  # 1,000,000 // 600 = 1666 rows a block
    assert [b.shape for b in blocks] == [(1666, 600), (834, 600)]
    again = np.concatenate(list(resample_indices(600, 2500, seed=1)))
    assert np.array_equal(np.concatenate(blocks), again)


def test_percentile_ci_skips_nan_rows_per_column() -> None:
    s = np.array([[0.0, 5.0], [1.0, np.nan], [2.0, 7.0], [3.0, np.nan], [4.0, 9.0]])
    ci = percentile_ci(s, alpha=0.5)
    assert ci.tolist() == [[1.0, 3.0], [6.0, 8.0]]


def test_mean_ci_is_the_rounded_bootstrap_of_the_mean() -> None:
    x = np.random.default_rng(0).normal(size=40)
    lo, hi = bootstrap_ci(lambda a: float(a.mean()), x, n_boot=300, seed=4)
    assert mean_ci(x, 300, 4) == [round(lo, 4), round(hi, 4)]
    assert mean_ci(x, 300, 4, digits=3) == [round(lo, 3), round(hi, 3)]
    assert mean_ci(np.array([]), 300, 4) is None and mean_ci(x, 0, 4) is None
    assert rounded_ci((float("nan"), 1.0)) is None


def _old_ratio_ci(hits: np.ndarray, totals: np.ndarray, n_boot: int, seed: int) -> list | None:
    """eval.campaigns.agreement.ratio_ci as it was before the kit."""
    if n_boot <= 0 or totals.sum() == 0:
        return None
    stats = []
    for block in resample_indices(len(totals), n_boot, seed):
        t = totals[block].sum(axis=1)
        stats.append(np.where(t > 0, hits[block].sum(axis=1) / np.maximum(t, 1), np.nan))
    s = np.concatenate(stats)
    s = s[np.isfinite(s)]
    if s.size == 0:
        return None
    return [round(float(np.percentile(s, 2.5)), 4), round(float(np.percentile(s, 97.5)), 4)]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ratio_ci_keeps_its_numbers(seed: int) -> None:
    rng = np.random.default_rng(seed)
    totals = rng.integers(0, 3, 25).astype(float)  # many units without a pair
    hits = np.minimum(totals, rng.integers(0, 3, 25)).astype(float)
    assert ratio_ci(hits, totals, 500, seed) == _old_ratio_ci(hits, totals, 500, seed)
    sparse = np.zeros(25)
    sparse[3] = 1.0  # most resamples hold no pair: every one that does still counts
    assert ratio_ci(sparse, sparse, 200, seed) == _old_ratio_ci(sparse, sparse, 200, seed)
