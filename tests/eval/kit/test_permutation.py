"""The paired permutation test between metrics and the significance clusters, recomputed
independently: p-values with :func:`scipy.stats.permutation_test` (exactly, over every swap
pattern, and within Monte Carlo error for random swaps), Holm and the cluster rule by brute
force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from eval.kit.stats.permutation import item_level, rank_transform, standardise, system_level
from eval.kit.stats.sig_clusters import (
    adjust_matrix,
    bh,
    clusters,
    holm,
    resolution_note,
    wins_losses,
)

N = 10
ALL_SWAPS = np.array(list(itertools.product([0, 1], repeat=N)), dtype=float)


def data(seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    h = rng.integers(1, 6, N).astype(float)
    scores = np.vstack(
        [h + rng.normal(0, 1.0, N), h + rng.normal(0, 2.5, N) * 3 + 40, rng.normal(size=N)]
    )
    return scores, h


def corr(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Row-wise Pearson r of ``x`` (..., n) with ``y`` (n)."""
    xc = x - x.mean(-1, keepdims=True)
    yc = y - y.mean()
    return (xc * yc).sum(-1) / np.sqrt((xc * xc).sum(-1) * (yc * yc).sum())


def scipy_p(a: np.ndarray, b: np.ndarray, stat, **kw) -> float:
    """scipy's two-sided p of the paired ("samples") permutation of the z-scored scores."""
    res = stats.permutation_test(
        (standardise(a), standardise(b)),
        stat,
        permutation_type="samples",
        vectorized=True,
        alternative="two-sided",
        **kw,
    )
    return float(res.pvalue)


@pytest.mark.parametrize("ranks", [False, True], ids=["pearson", "spearman"])
def test_item_level_p_values_are_scipys_exact_ones(ranks: bool) -> None:
    scores, h = data()
    if ranks:
        scores, h = rank_transform(scores), rank_transform(h)
    res = item_level(scores, h, patterns=ALL_SWAPS)
    for a, b in itertools.combinations(range(3), 2):
        p = scipy_p(
            scores[a], scores[b], lambda x, y, axis: corr(x, h) - corr(y, h), n_resamples=np.inf
        )
        assert res.p[a, b] == pytest.approx(p, abs=1e-12) and res.p[b, a] == res.p[a, b]
        assert res.diff[a, b] == pytest.approx(
            stats.pearsonr(scores[a], h).statistic - stats.pearsonr(scores[b], h).statistic
        )
    if ranks:  # Pearson r of ranks: the statistic is the difference of Spearman ρ
        rho = [stats.spearmanr(s, h).statistic for s in scores]
        assert res.corr == pytest.approx(rho)


def test_system_level_p_values_are_scipys_exact_ones() -> None:
    scores, h = data(5)
    systems = np.repeat(list("abcde"), 2)
    members = [np.flatnonzero(systems == s) for s in "abcde"]
    hs = np.array([h[m].mean() for m in members])

    def sys_corr(x: np.ndarray) -> np.ndarray:
        return corr(np.stack([x[..., m].mean(-1) for m in members], axis=-1), hs)

    res = system_level(scores, h, systems, patterns=ALL_SWAPS)
    for a, b in itertools.combinations(range(3), 2):
        p = scipy_p(
            scores[a], scores[b], lambda x, y, axis: sys_corr(x) - sys_corr(y), n_resamples=np.inf
        )
        assert res.p[a, b] == pytest.approx(p, abs=1e-12)
        means = [np.array([scores[k][m].mean() for m in members]) for k in (a, b)]
        r = [stats.pearsonr(m, hs).statistic for m in means]
        assert res.diff[a, b] == pytest.approx(r[0] - r[1])


def test_random_swaps_agree_with_scipy_within_monte_carlo_error() -> None:
    rng = np.random.default_rng(11)
    n = 60
    h = rng.normal(size=n)
    scores = np.vstack([h + rng.normal(0, 1.0, n), h + rng.normal(0, 1.3, n)])
    r = 4000
    res = item_level(scores, h, n_resamples=r, seed=7)
    p = scipy_p(
        scores[0],
        scores[1],
        lambda x, y, axis: corr(x, h) - corr(y, h),
        n_resamples=20000,
        rng=np.random.default_rng(1),
    )
    se = np.sqrt(p * (1 - p) / r) + np.sqrt(p * (1 - p) / 20000)
    assert 0.05 < p < 0.95  # a p-value the test can be wrong about in either direction
    assert abs(res.p[0, 1] - p) < 4 * 2 * se + 2 / r  # two-sided: twice a one-sided p


def test_seeded_and_reproducible() -> None:
    scores, h = data()
    one = item_level(scores, h, n_resamples=500, seed=4)
    again = item_level(scores, h, n_resamples=500, seed=4)
    other = item_level(scores, h, n_resamples=500, seed=5)
    assert np.array_equal(one.p, again.p) and not np.array_equal(one.p, other.p)
    assert one.n_resamples == 500


def test_two_metrics_that_tie_are_never_separated() -> None:
    """A copy and a monotone transform of a metric tie with it (same ranks): the difference
    of Spearman ρ is 0 under every swap, p = 1, the same cluster, no win or loss."""
    scores, h = data()
    tied = np.vstack([scores[0], scores[0] * 3 + 1, scores[2]])
    res = item_level(rank_transform(tied), rank_transform(h), n_resamples=300, seed=0)
    assert res.diff[0, 1] == 0 and res.p[0, 1] == 1.0
    names = ["a", "a3", "c"]
    adj = adjust_matrix(res.p, "bh")
    ranks = clusters(res.corr, adj, names)
    assert ranks["a"] == ranks["a3"]
    wl = wins_losses(res.corr, adj, names)
    assert wl["a"]["wins"] == wl["a3"]["wins"] and wl["a"]["losses"] == wl["a3"]["losses"]


def test_a_constant_metric_has_no_correlation_and_no_rank() -> None:
    scores, h = data()
    res = item_level(np.vstack([scores[0], np.ones(N)]), h, n_resamples=50, seed=0)
    assert np.isnan(res.corr[1]) and np.isnan(res.p[0, 1])
    assert clusters(res.corr, adjust_matrix(res.p), ["a", "flat"]) == {"a": 1}


def brute_holm(p: list[float]) -> list[float]:
    """Holm by its definition: sorted p_(i) gets max_{j≤i} min(1, (m − j + 1) p_(j))."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def brute_bh(p: list[float]) -> list[float]:
    """Benjamini–Hochberg by its definition: p_(i) gets min_{j≥i} min(1, m p_(j) / j)."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    for rank, i in enumerate(order):
        out[i] = min(min(1.0, m * p[order[j]] / (j + 1)) for j in range(rank, m))
    return out


def test_holm_and_bh_match_their_definitions() -> None:
    rng = np.random.default_rng(0)
    for _ in range(20):
        p = list(rng.uniform(0, 0.2, rng.integers(1, 12)))
        assert holm(p) == pytest.approx(brute_holm(p))
        assert bh(p) == pytest.approx(brute_bh(p))
    q = np.array([[1, 0.01, 0.04], [0.01, 1, 0.03], [0.04, 0.03, 1]])
    assert adjust_matrix(q, "none").tolist() == q.tolist()
    assert adjust_matrix(q, "holm")[0, 2] == pytest.approx(0.06)
    with pytest.raises(ValueError, match="unknown correction 'bonf'"):
        adjust_matrix(q, "bonf")


def test_too_few_resamples_for_the_correction_are_named() -> None:
    """A permutation p-value is at least 2 / (R + 1): Holm over 190 pairs needs R ≥ 7,599."""
    assert "give --n-perm 7599 or more" in resolution_note(20, 1000, "holm")
    assert resolution_note(20, 7599, "holm") is None
    assert resolution_note(20, 1000, "bh") is None
    assert "give --n-perm 39 or more" in resolution_note(3, 20, "bh")


def brute_ranks(corr: list[float], p: np.ndarray, alpha: float = 0.05) -> list[int]:
    """mt-metrics-eval's AssignRanks on the metrics sorted best first: a metric opens a new
    rank when any metric from the current rank's start up to it beats it."""
    idx = sorted(range(len(corr)), key=lambda i: -corr[i])
    ranks, rank, start = {}, 1, 0
    for pos in range(len(idx)):
        if any(p[idx[j], idx[pos]] <= alpha for j in range(start, pos)):
            rank, start = rank + 1, pos
        ranks[idx[pos]] = rank
    return [ranks[i] for i in range(len(corr))]


def test_clusters_follow_the_mt_metrics_eval_rule() -> None:
    # b is not separated from a, c is separated from b only: c opens rank 2 although no test
    # separates it from the best; d is separated from nothing in rank 2
    corr = np.array([0.9, 0.8, 0.7, 0.6])
    p = np.array(
        [[1, 0.3, 0.2, 0.01], [0.3, 1, 0.01, 0.01], [0.2, 0.01, 1, 0.4], [0.01, 0.01, 0.4, 1]]
    )
    names = ["a", "b", "c", "d"]
    assert clusters(corr, p, names) == {"a": 1, "b": 1, "c": 2, "d": 2}
    assert brute_ranks(list(corr), p) == [1, 1, 2, 2]
    rng = np.random.default_rng(2)
    for _ in range(50):
        m = int(rng.integers(2, 7))
        c = rng.uniform(size=m)
        q = rng.uniform(0, 0.12, (m, m))
        q = np.triu(q, 1) + np.triu(q, 1).T + np.eye(m)
        got = clusters(c, q, [str(i) for i in range(m)])
        assert [got[str(i)] for i in range(m)] == brute_ranks(list(c), q)
    wl = wins_losses(corr, p, names)
    assert wl == {
        "a": {"wins": 1, "losses": 0},
        "b": {"wins": 2, "losses": 0},
        "c": {"wins": 0, "losses": 1},
        "d": {"wins": 0, "losses": 2},
    }
