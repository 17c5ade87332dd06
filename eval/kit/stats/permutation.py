"""Paired permutation tests between every two metrics: is metric A's correlation with the
humans really higher than metric B's on these items?

The test is the "PERM-BOTH" paired permutation of Deutsch, Dror & Roth (TACL 2021), the one
Google's mt-metrics-eval runs for the WMT metrics task. Each metric's scores are first
standardised (z-scores over the items, so that two metrics on different scales can be
exchanged); a resample then swaps the two metrics' values on a random half of the items (each
item independently, with probability 1/2) and recomputes the statistic

    T = corr(A, humans) − corr(B, humans).

Under the null hypothesis (the two metrics are exchangeable item by item) every swap pattern is
as likely as the observed one. The p-value is two-sided, as :func:`scipy.stats.permutation_test`
computes it for ``permutation_type="samples"``: ``2 · min(P(T* ≥ T), P(T* ≤ T))`` with the
observed pattern counted among the resamples (``(count + 1) / (R + 1)``), capped at 1.

Two levels, one kernel:

* item level (:func:`item_level`): ``corr`` is Pearson's r of the given vectors; pass ranks
  (``rank_transform``) to test Spearman's ρ;
* system level (:func:`system_level`): the swaps are still over items, and ``corr`` is Pearson's
  r between the systems' mean scores and the systems' mean human ratings.

Every pair shares the same swap patterns (each pair's test is exact on its own; a correction
for multiple comparisons must hold under dependence, as Holm's does). The work is vectorised:
for a block of resamples ``S`` (``R × n`` zeros and ones) only ``S @ X`` is computed for the
``m`` metrics' few sums, never per pair, so all ``m (m − 1) / 2`` pairs cost about as much as
``m`` correlations per resample.

Example:
    >>> import numpy as np
    >>> h = np.arange(12.0)
    >>> close, coarse = h + np.tile([0.5, -0.5], 6), np.repeat([0.0, 1.0], 6)
    >>> res = item_level(np.vstack([close, coarse]), h, n_resamples=200, seed=0)
    >>> res.corr.round(3).tolist(), bool(res.p[0, 1] < 0.05), bool(res.p[0, 1] == res.p[1, 0])
    ([0.989, 0.869], True, True)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata

__all__ = [
    "PermutationResult",
    "item_level",
    "rank_transform",
    "standardise",
    "swap_patterns",
    "system_level",
]

TOLERANCE = 1e-10
"""Correlation differences closer than this to the observed one count as equal to it (the
resampled values are sums updated in place, not recomputed from scratch)."""
_CELLS = 4_000_000  # swap-pattern cells (resamples × items) held at once


@dataclass
class PermutationResult:
    """Each metric's correlation, every pair's difference and two-sided p-value.

    ``diff[a, b] = corr[a] − corr[b]``; ``p`` is symmetric with ones on the diagonal and
    ``nan`` where a metric's correlation is undefined (a constant metric).
    """

    corr: np.ndarray
    diff: np.ndarray
    p: np.ndarray
    n_resamples: int


def standardise(x: np.ndarray) -> np.ndarray:
    """Z-scores along the last axis (a constant row stays constant: zeros).

    >>> standardise(np.array([1.0, 2.0, 3.0])).round(3).tolist()
    [-1.225, 0.0, 1.225]
    """
    x = np.asarray(x, dtype=float)
    sd = x.std(axis=-1, keepdims=True)
    return (x - x.mean(axis=-1, keepdims=True)) / np.where(sd > 0, sd, 1.0)


def rank_transform(x: np.ndarray) -> np.ndarray:
    """Average ranks along the last axis (ties share their mean rank), so that Pearson's r of
    the result is Spearman's ρ of the input."""
    return rankdata(np.asarray(x, dtype=float), axis=-1)


def swap_patterns(n: int, n_resamples: int, seed: int | None) -> Iterator[np.ndarray]:
    """Blocks of swap patterns, ``(k, n)`` float arrays of 0/1, ``n_resamples`` rows in all;
    deterministic for ``(n, n_resamples, seed)``."""
    rng = np.random.default_rng(seed)
    step = max(1, min(n_resamples, _CELLS // max(n, 1)))
    done = 0
    while done < n_resamples:
        k = min(step, n_resamples - done)
        yield (rng.random((k, n)) < 0.5).astype(float)
        done += k


def _pearson_from_sums(s1: np.ndarray, s2: np.ndarray, s3: np.ndarray, n: float, hh: float):
    """Pearson r from Σx, Σx², Σx·hc (hc: the centred humans, Σhc² = ``hh``)."""
    var = s2 - s1 * s1 / n
    with np.errstate(invalid="ignore", divide="ignore"):
        r = s3 / np.sqrt(var * hh)
    return np.where(var > 1e-12 * np.maximum(np.abs(s2), 1.0), r, np.nan)


def _p_values(
    observed: np.ndarray, greater: np.ndarray, less: np.ndarray, total: int, exact: bool
) -> np.ndarray:
    adj = 0 if exact else 1
    p = 2 * np.minimum(greater + adj, less + adj) / (total + adj)
    p = np.clip(p, 0.0, 1.0)
    p[~np.isfinite(observed)] = np.nan
    np.fill_diagonal(p, 1.0)
    return p


def _test(
    x: np.ndarray,
    target: np.ndarray,
    blocks: Iterator[np.ndarray],
    exact: bool,
    members: list[np.ndarray] | None = None,
) -> PermutationResult:
    """The shared kernel: ``x`` (m, n) standardised scores; ``members`` the item indices of
    each system (system level) or ``None`` (item level, ``target`` one value per item)."""
    m, n = x.shape
    if members is None:
        hc = target - target.mean()
        hh = float(hc @ hc)
        base = (x.sum(1), (x * x).sum(1), x @ hc)

        def resampled(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            # swapped part of each metric's sums: S @ x, S @ x², S @ (x hc)
            u, v, w = s @ x.T, s @ (x * x).T, s @ (x * hc).T  # (k, m) each
            # [r, a, b]: the swapped items' B − A; A' = A + S(B − A), B' = B − S(B − A)
            deltas = [q[:, None, :] - q[:, :, None] for q in (u, v, w)]
            a = [tot[:, None] + d for tot, d in zip(base, deltas, strict=True)]
            b = [tot[None, :] - d for tot, d in zip(base, deltas, strict=True)]
            return (
                _pearson_from_sums(a[0], a[1], a[2], n, hh),
                _pearson_from_sums(b[0], b[1], b[2], n, hh),
            )

        observed_corr = _pearson_from_sums(base[0], base[1], base[2], n, hh)
    else:
        hs = np.array([target[idx].mean() for idx in members])
        hc = hs - hs.mean()
        hh = float(hc @ hc)
        counts = np.array([len(idx) for idx in members], dtype=float)
        means = np.stack([x[:, idx].mean(1) for idx in members], axis=1)  # (m, k)

        def sys_corr(mean: np.ndarray) -> np.ndarray:  # (..., k) → Pearson with hs
            kk = float(len(hs))
            return _pearson_from_sums(mean.sum(-1), (mean * mean).sum(-1), mean @ hc, kk, hh)

        def resampled(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            # per system, the swapped items' sums of each metric: (k_res, m, systems)
            part = np.stack([s[:, idx] @ x[:, idx].T for idx in members], axis=2) / counts
            delta = part[:, None, :, :] - part[:, :, None, :]  # [r, a, b, j]: B − A
            return sys_corr(means[None, :, None, :] + delta), sys_corr(
                means[None, None, :, :] - delta
            )

        observed_corr = sys_corr(means)
    observed = observed_corr[:, None] - observed_corr[None, :]
    greater = np.zeros((m, m))
    less = np.zeros((m, m))
    total = 0
    for s in blocks:
        ra, rb = resampled(s)
        t = ra - rb
        greater += np.sum(t >= observed - TOLERANCE, axis=0)
        less += np.sum(t <= observed + TOLERANCE, axis=0)
        total += s.shape[0]
    return PermutationResult(
        corr=observed_corr,
        diff=observed,
        p=_p_values(observed, greater, less, total, exact),
        n_resamples=total,
    )


def _run(
    scores: np.ndarray,
    human: np.ndarray,
    n_resamples: int,
    seed: int | None,
    patterns: np.ndarray | None,
    members: list[np.ndarray] | None = None,
) -> PermutationResult:
    x = standardise(np.atleast_2d(scores))
    n = x.shape[1]
    if patterns is not None:
        blocks: Iterator[np.ndarray] = iter([np.asarray(patterns, float)])
    else:
        blocks = swap_patterns(n, n_resamples, seed)
    exact = patterns is not None and len(patterns) == 2**n
    return _test(x, np.asarray(human, dtype=float), blocks, exact, members)


def item_level(
    scores: np.ndarray,
    human: np.ndarray,
    *,
    n_resamples: int = 1000,
    seed: int | None = 0,
    patterns: np.ndarray | None = None,
) -> PermutationResult:
    """Every pair of metrics (rows of ``scores``, ``(m, n)``) tested on ``corr`` = Pearson's r
    with ``human`` over the items. Give ranks (:func:`rank_transform`, of the humans too) to
    test Spearman's ρ. ``patterns`` (``(R, n)`` of 0/1) replaces the random swaps: all
    ``2**n`` of them make the test exact, as scipy's for small ``n``."""
    return _run(scores, human, n_resamples, seed, patterns)


def system_level(
    scores: np.ndarray,
    human: np.ndarray,
    systems: np.ndarray,
    *,
    n_resamples: int = 1000,
    seed: int | None = 0,
    patterns: np.ndarray | None = None,
) -> PermutationResult:
    """Every pair of metrics tested on ``corr`` = Pearson's r between the systems' mean scores
    and the systems' mean human ratings; swaps over items, as at item level. ``systems`` gives
    each item's system (any labels)."""
    labels = np.asarray(systems)
    members = [np.flatnonzero(labels == s) for s in np.unique(labels)]
    return _run(scores, human, n_resamples, seed, patterns, members)
