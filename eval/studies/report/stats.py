"""The statistics of the report: bootstrap means, Kendall's W, Spearman, paired permutations.

* :func:`boot_means` — means of the columns of ``x`` (nan = missing) and their percentile 95%
  intervals over resamples of the rows. The resamples are those of
  :func:`eval.kit.stats.resample.resample_counts`: for ``n`` rows they are the rows of
  ``numpy.random.default_rng(seed).integers(0, n, size=(B, n))``, so they depend only on
  ``(n, B, seed)``; a column's mean in a resample is over the drawn rows where it is defined.
* :func:`kendall_w` — Kendall's coefficient of concordance of ``m`` raters (columns) ranking
  ``n`` objects (rows), with average ranks for ties and the ties correction, and the
  chi-square test of ``m (n - 1) W`` on ``n - 1`` degrees of freedom.
* :func:`paired_permutation` — two-sided sign-flip test of the mean paired difference: every
  enumeration of the signs when ``2**n`` is at most ``n_perm`` (an exact p-value), else
  ``n_perm`` random sign vectors with p = (hits + 1) / (n_perm + 1). The test is
  :func:`scipy.stats.permutation_test` with one sample and ``permutation_type="samples"``
  (tests/studies/test_report_stats.py checks they agree: equal when enumerated, within
  Monte-Carlo error otherwise), computed here as one cached sign matrix times the differences
  because scipy's generic resampling costs far more: 468 ms of CPU against 46 ms (10 ms with
  the signs cached) for 250 pairs × 4 measures × 10,000 flips, and 11.2 s against 2.9 s for
  ``python -m benchmarks.study_report --no-plots`` (2026-12-07, shared 2-core machine).

Example:
    >>> kendall_w(np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]))["w"]
    1.0
    >>> paired_permutation(np.array([1.0, 2.0, 3.0]), n_perm=100, seed=0)["p_value"]
    0.25
"""

from __future__ import annotations

from functools import lru_cache
from itertools import product

import numpy as np
from scipy import stats

from eval.kit.stats.percentile import percentile_ci
from eval.kit.stats.resample import resample_counts


@lru_cache(maxsize=8)
def _counts(n: int, n_boot: int, seed: int | None) -> np.ndarray:
    """(B, n) draw counts of every resample, cached: cells of equal size share them."""
    return np.concatenate(list(resample_counts(n, n_boot, seed))).astype(float)


def boot_means(x: np.ndarray, n_boot: int, seed: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Column means of ``x`` (n, k) and their (k, 2) percentile 95% CIs (nan where undefined)."""
    x = np.asarray(x, dtype=float)
    n, k = x.shape
    ok = np.isfinite(x)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(ok.any(axis=0), np.where(ok, x, 0).sum(0) / ok.sum(0), np.nan)
    if n == 0 or n_boot <= 0:
        return means, np.full((k, 2), np.nan)
    c = _counts(n, n_boot, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = (c @ np.where(ok, x, 0.0)) / (c @ ok.astype(float))
    ci = np.full((k, 2), np.nan)
    full = np.isfinite(boot).all(axis=0)
    if full.any():  # the fast path: no resample without a value
        ci[full] = np.quantile(boot[:, full], [0.025, 0.975], axis=0).T
    some = np.isfinite(boot).any(axis=0) & ~full
    if some.any():  # resamples that drew none of a column's defined rows are skipped
        ci[some] = percentile_ci(boot[:, some])
    return means, ci


def average_ranks(col: np.ndarray) -> tuple[np.ndarray, float]:
    """Ranks (1 = lowest, ties averaged) and the ties term sum(t^3 - t) of one column."""
    ranks = stats.rankdata(col, method="average")
    _, t = np.unique(col, return_counts=True)
    return ranks, float(np.sum(t.astype(float) ** 3 - t))


def kendall_w(scores: np.ndarray) -> dict:
    """Kendall's W of the columns (raters) of ``scores`` (n objects × m raters), no nans."""
    n, m = scores.shape
    if m < 2:
        return {"w": None, "reason": f"needs at least 2 backends to compare (has {m})"}
    if n < 2:
        return {"w": None, "reason": f"needs at least 2 prompters to rank (has {n})"}
    ranks = np.empty_like(scores, dtype=float)
    ties = 0.0
    for j in range(m):
        ranks[:, j], t = average_ranks(scores[:, j])
        ties += t
    r = ranks.sum(axis=1)
    s = float(np.sum((r - r.mean()) ** 2))
    denom = m**2 * (n**3 - n) - m * ties
    if denom <= 0:
        return {"w": None, "reason": "every backend ties all prompters; no ranking to compare"}
    w = 12.0 * s / denom
    chi2 = m * (n - 1) * w
    return {
        "w": w,
        "chi2": chi2,
        "df": n - 1,
        "p_value": float(stats.chi2.sf(chi2, n - 1)),
        "reason": None,
    }


def spearman(a: np.ndarray, b: np.ndarray) -> dict:
    """Spearman's rho of two equal-length vectors, or null with a reason."""
    if len(a) < 2:
        return {"rho": None, "reason": f"needs at least 2 prompters (has {len(a)})"}
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return {"rho": None, "reason": "one backend gives every prompter the same value"}
    return {"rho": float(stats.spearmanr(a, b).statistic), "reason": None}


@lru_cache(maxsize=8)
def _signs(n: int, n_perm: int, seed: int | None) -> tuple[np.ndarray, bool]:
    if n <= 20 and 2**n <= n_perm:
        return np.array(list(product((1.0, -1.0), repeat=n))), True
    rng = np.random.default_rng(seed)
    return rng.choice((-1.0, 1.0), size=(n_perm, n)), False


def paired_permutations(d: np.ndarray, *, n_perm: int, seed: int | None) -> list[dict]:
    """:func:`paired_permutation` of every column of ``d`` (n pairs × k), sharing the flips."""
    d = np.asarray(d, dtype=float)
    d = d[:, None] if d.ndim == 1 else d
    n, k = d.shape
    if n == 0:
        return [{"difference": None, "p_value": None, "n_pairs": 0, "exact": None}] * k
    obs = d.mean(axis=0)
    signs, exact = _signs(n, n_perm, seed)
    perm = np.abs(signs @ d) / n  # (flips, k)
    hits = np.sum(perm >= np.abs(obs) - 1e-12, axis=0)
    p = hits / len(signs) if exact else (hits + 1) / (len(signs) + 1)
    return [
        {
            "difference": float(obs[j]),
            "p_value": float(min(1.0, p[j])),
            "n_pairs": n,
            "exact": exact,
        }
        for j in range(k)
    ]


def paired_permutation(d: np.ndarray, *, n_perm: int, seed: int | None) -> dict:
    """Two-sided sign-flip permutation test of ``mean(d) == 0`` for paired differences ``d``."""
    return paired_permutations(np.asarray(d, dtype=float)[:, None], n_perm=n_perm, seed=seed)[0]
