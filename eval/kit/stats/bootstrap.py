"""Percentile bootstrap confidence intervals for metrics computed over items.

:func:`bootstrap_ci` resamples *rows* (items) jointly across all input arrays, with
replacement, recomputes the metric on every resample and returns the percentile interval.
Resamples on which the metric is undefined (``nan``, e.g. a correlation on a resample where
one side is constant) are skipped; if fewer than ``min_valid * n_boot`` resamples remain the
interval is ``(nan, nan)``.

The resamples are :func:`eval.kit.stats.resample.resample_indices`: they depend only on
``seed``, the number of rows ``n`` and ``n_boot`` (never on the metric, nor on
``vectorized``), so several metrics bootstrapped with the same seed over the same items see
the same resamples.

>>> import numpy as np
>>> x = np.arange(20.0)
>>> lo, hi = bootstrap_ci(lambda a: float(a.mean()), x, n_boot=200, seed=1)
>>> bool(lo < x.mean() < hi)
True
>>> vec = lambda a: a.mean(axis=-1)  # one call on a (resamples x items) array
>>> bootstrap_ci(vec, x, n_boot=200, seed=1, vectorized=True) == (lo, hi)
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from eval.kit.stats.resample import resample_indices

__all__ = ["bootstrap_ci"]


def bootstrap_ci(
    fn: Callable[..., Any],
    *arrays: Sequence[Any] | np.ndarray,
    n_boot: int = 1000,
    seed: int | None = 0,
    alpha: float = 0.05,
    vectorized: bool = False,
    clusters: Sequence[Any] | np.ndarray | None = None,
    min_valid: float = 0.5,
) -> tuple[float, float]:
    """Percentile bootstrap ``(1 - alpha)`` interval of ``fn(*arrays)``.

    Parameters
    ----------
    fn:
        The metric. By default it is called once per resample with 1-D arrays (one per input,
        resampled jointly) and returns a float (``nan`` when undefined). With
        ``vectorized=True`` it is called with 2-D arrays of shape ``(k, n)`` -- ``k``
        resamples at once, one per row -- and must return ``k`` values.
    arrays:
        Equal-length inputs; row ``i`` of every array belongs to item ``i``.
    n_boot, seed, alpha:
        Number of resamples, seed for ``np.random.default_rng``, and the two-sided level.
    clusters:
        Optional cluster label per row. When given, whole clusters are resampled with
        replacement (a cluster bootstrap: each resample holds the rows of the drawn clusters,
        so resamples may differ in length) and ``fn`` is called once per resample; with
        ``vectorized=True`` it receives ``(1, m)`` arrays.
    min_valid:
        Minimum share of resamples on which ``fn`` is defined; below it the result is
        ``(nan, nan)``.

    Returns ``(nan, nan)`` for empty input.
    """
    cols = [np.asarray(a) for a in arrays]
    if not cols:
        raise ValueError("bootstrap_ci needs at least one array")
    n = len(cols[0])
    if any(len(c) != n for c in cols):
        raise ValueError("all arrays must have the same length")
    if n == 0 or n_boot <= 0:
        return (float("nan"), float("nan"))

    if clusters is not None:
        stats = _cluster_stats(fn, cols, np.asarray(clusters), n_boot, seed, vectorized)
    else:
        parts: list[np.ndarray] = []
        for idx in resample_indices(n, n_boot, seed):
            if vectorized:
                out = np.asarray(fn(*(c[idx] for c in cols)), dtype=float).reshape(-1)
            else:
                out = np.array([fn(*(c[row] for c in cols)) for row in idx], dtype=float)
            parts.append(out)
        stats = np.concatenate(parts)

    valid = stats[np.isfinite(stats)]
    if valid.size == 0 or valid.size < min_valid * n_boot:
        return (float("nan"), float("nan"))
    lo, hi = np.quantile(valid, [alpha / 2, 1 - alpha / 2])
    return (float(lo), float(hi))


def _cluster_stats(
    fn: Callable[..., Any],
    cols: list[np.ndarray],
    clusters: np.ndarray,
    n_boot: int,
    seed: int | None,
    vectorized: bool,
) -> np.ndarray:
    if len(clusters) != len(cols[0]):
        raise ValueError("clusters must have one label per row")
    _, inverse = np.unique(clusters, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    counts = np.bincount(inverse)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    members = [order[s : s + c] for s, c in zip(starts, counts, strict=True)]
    out = np.empty(n_boot, dtype=float)
    pos = 0
    for block in resample_indices(len(members), n_boot, seed):
        for row in block:
            rows = np.concatenate([members[g] for g in row])
            if vectorized:
                out[pos] = float(np.asarray(fn(*(c[rows][None, :] for c in cols))).reshape(-1)[0])
            else:
                out[pos] = float(fn(*(c[rows] for c in cols)))
            pos += 1
    return out


def rounded_ci(lo_hi: tuple[float, float], digits: int = 4) -> list[float] | None:
    """An interval as reports show it: ``[lo, hi]`` rounded, ``None`` when undefined.

    >>> rounded_ci((0.123456, 0.5)), rounded_ci((float("nan"), float("nan")))
    ([0.1235, 0.5], None)
    """
    lo, hi = lo_hi
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return None
    return [round(float(lo), digits), round(float(hi), digits)]


ZERO_WIDTH = "zero width: too few items, or all alike, for the resamples to differ"


def ci_text(ci: Sequence[float] | None, digits: int = 2) -> str:
    """An interval as report text, ``"[lo, hi]"``; a zero-width one says why it is zero
    (``""`` when there is none).

    >>> ci_text([0.5, 0.75]), ci_text(None)
    ('[0.50, 0.75]', '')
    >>> ci_text([92.16, 92.16])
    '[92.16, 92.16] (zero width: too few items, or all alike, for the resamples to differ)'
    """
    if not ci or ci[0] is None or ci[1] is None:
        return ""
    text = f"[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"
    return f"{text} ({ZERO_WIDTH})" if ci[0] == ci[1] else text


def mean_ci(x: np.ndarray, n_boot: int, seed: int | None, digits: int = 4) -> list[float] | None:
    """The bootstrap interval of the mean of ``x``, rounded (``None`` when empty or undefined).

    >>> mean_ci(np.ones(5), n_boot=50, seed=0)
    [1.0, 1.0]
    """
    x = np.asarray(x, dtype=float)
    if x.size == 0 or n_boot <= 0:
        return None
    mean = lambda a: a.mean(axis=-1)  # noqa: E731  (a block of resamples at once)
    return rounded_ci(bootstrap_ci(mean, x, n_boot=n_boot, seed=seed, vectorized=True), digits)
