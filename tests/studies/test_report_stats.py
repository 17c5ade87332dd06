"""The report's statistics against hand computations: Kendall's W, permutation p-values,
bootstrap intervals."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest
from scipy import stats

from eval.studies.report.stats import (
    boot_means,
    kendall_w,
    paired_permutation,
    paired_permutations,
    spearman,
)


def test_kendall_w_matches_a_hand_computation():
    # 4 objects (rows) ranked by 3 raters (columns): rank sums 4, 6, 8, 12; S = 35;
    # W = 12 S / (m^2 (n^3 - n)) = 420 / 540; chi2 = m (n - 1) W = 7 on 3 df.
    ranks = np.array([[1, 1, 2], [2, 3, 1], [3, 2, 3], [4, 4, 4]], dtype=float)
    res = kendall_w(ranks * 10.0)  # any increasing transform of the ranks gives the same W
    assert res["w"] == pytest.approx(420 / 540)
    assert res["chi2"] == pytest.approx(7.0)
    assert res["df"] == 3
    assert res["p_value"] == pytest.approx(0.07189, abs=1e-5)
    assert res["reason"] is None


def test_kendall_w_ties_correction():
    # rater 3 ties the first two objects (ranks 1.5, 1.5): rank sums 3.5, 6.5, 8, 12; S = 37.5;
    # T = 2^3 - 2 = 6; W = 12 S / (m^2 (n^3 - n) - m T) = 450 / 522.
    scores = np.array([[1, 1, 5], [2, 3, 5], [3, 2, 7], [4, 4, 8]], dtype=float)
    assert kendall_w(scores)["w"] == pytest.approx(450 / 522)


def test_kendall_w_perfect_and_undefined():
    assert kendall_w(np.array([[1.0, 2.0], [2.0, 3.0], [3.0, 9.0]]))["w"] == pytest.approx(1.0)
    one = kendall_w(np.array([[1.0], [2.0]]))
    assert one["w"] is None and "2 backends" in one["reason"]
    few = kendall_w(np.array([[1.0, 2.0]]))
    assert few["w"] is None and "2 prompters" in few["reason"]
    flat = kendall_w(np.ones((3, 2)))
    assert flat["w"] is None and "ties all prompters" in flat["reason"]


def test_spearman():
    assert spearman(np.array([1.0, 2, 3, 4]), np.array([1.0, 3, 2, 4]))["rho"] == pytest.approx(0.8)
    assert spearman(np.array([1.0, 1.0]), np.array([1.0, 2.0]))["rho"] is None


def test_paired_permutation_exact_p_value():
    # all 16 sign vectors of 4 differences: only all-plus and all-minus reach |mean| = 2.5
    res = paired_permutation(np.array([1.0, 2.0, 3.0, 4.0]), n_perm=1000, seed=0)
    assert res == {"difference": 2.5, "p_value": 2 / 16, "n_pairs": 4, "exact": True}
    d = np.array([1.0, -1.0, 2.0, 3.0, 0.5])
    hits = sum(abs(np.dot(s, d)) >= abs(d.sum()) - 1e-12 for s in product((1, -1), repeat=5))
    assert paired_permutation(d, n_perm=32, seed=0)["p_value"] == pytest.approx(hits / 32)


def test_paired_permutation_monte_carlo():
    rng = np.random.default_rng(3)
    shifted = rng.normal(1.0, 1.0, 40)
    res = paired_permutation(shifted, n_perm=2000, seed=1)
    assert res["exact"] is False and res["p_value"] == pytest.approx(1 / 2001)
    null = paired_permutation(rng.normal(0.0, 1.0, 40), n_perm=2000, seed=1)
    assert 0.01 < null["p_value"] <= 1.0
    # the same seed gives the same flips; columns share them
    both = paired_permutations(np.c_[shifted, shifted], n_perm=2000, seed=1)
    assert both[0] == both[1] == res
    assert paired_permutation(np.array([]), n_perm=10, seed=0)["n_pairs"] == 0


def test_boot_means_equals_a_naive_loop():
    rng = np.random.default_rng(0)
    x = rng.normal(3, 1, (15, 2))
    x[[2, 7], 1] = np.nan  # a measure missing on two rows
    means, ci = boot_means(x, n_boot=300, seed=5)
    assert means[0] == pytest.approx(x[:, 0].mean())
    assert means[1] == pytest.approx(np.nanmean(x[:, 1]))
    idx = np.random.default_rng(5).integers(0, 15, size=(300, 15))  # the documented draws
    for j in range(2):
        loop = []
        for row in idx:
            vals = [x[i, j] for i in row if not np.isnan(x[i, j])]
            loop.append(sum(vals) / len(vals))
        assert ci[j].tolist() == pytest.approx(np.percentile(loop, [2.5, 97.5]).tolist())


def test_boot_means_coverage_and_edges():
    # a 95% interval of the mean covers the true mean in about 95% of samples
    rng = np.random.default_rng(1)
    covered = 0
    for k in range(200):
        ci = boot_means(rng.normal(0, 1, (30, 1)), n_boot=400, seed=k)[1][0]
        covered += ci[0] <= 0 <= ci[1]
    assert 0.85 <= covered / 200 <= 0.99
    means, ci = boot_means(np.zeros((0, 3)), n_boot=100, seed=0)
    assert np.isnan(means).all() and np.isnan(ci).all()
    assert np.isnan(boot_means(np.ones((4, 1)), n_boot=0, seed=0)[1]).all()


def _scipy_sign_flip(d: np.ndarray, n_perm: int, seed: int) -> float:
    """scipy's paired test of ``mean(d) == 0``: one sample, ``permutation_type="samples"``
    flips the signs (exactly, over all ``2**n``, when ``n_perm >= 2**n``)."""
    return float(stats.permutation_test(
        (d,), lambda x, axis: np.mean(x, axis=axis), permutation_type="samples",
        vectorized=True, n_resamples=n_perm, rng=np.random.default_rng(seed),
    ).pvalue)  # fmt: skip


@pytest.mark.parametrize("shift", [0.0, 0.15, 0.3, 0.5, 1.0])
def test_the_sign_flip_test_is_scipy_s_within_monte_carlo_error(shift: float) -> None:
    """The report keeps its own sign-flip kernel (one cached sign matrix times the
    differences: ~100x less CPU than scipy's generic resampling, python -m
    benchmarks.study_report); scipy.stats.permutation_test is the reference it must match."""
    d = np.random.default_rng(11).normal(shift, 1.0, 30)
    r = 20_000
    ours = paired_permutation(d, n_perm=r, seed=5)["p_value"]
    ref = _scipy_sign_flip(d, r, seed=6)
    p = max(ref, 1 / r)
    # two independent estimates of one p: scipy's 2·min(side counts) has variance
    # p(2 - p)/R, ours (|T*| >= |T|) p(1 - p)/R; 4 standard errors of the difference, plus
    # the conventions' +1 terms
    assert abs(ours - ref) <= 4 * np.sqrt((p * (2 - p) + p * (1 - p)) / r) + 3 / r, (ours, ref)
    small = d[:12]  # enumerated by both: no randomness, the same p
    assert paired_permutation(small, n_perm=2**12, seed=0)["exact"] is True
    assert paired_permutation(small, n_perm=2**12, seed=0)["p_value"] == pytest.approx(
        _scipy_sign_flip(small, 2**12, seed=0)
    )
