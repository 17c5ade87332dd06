"""Exact binomial bounds on disagreement, and how many labels a target needs.

:func:`upper_bound` is the one-sided Clopper–Pearson bound: with ``k`` disagreements among
``n`` kept items, the disagreement rate is at most ``upper_bound(k, n, delta)`` with
probability at least ``1 - delta``. Saying "the bound is at most ``1 - target``" is the same
as rejecting "the disagreement rate exceeds ``1 - target``" by the exact binomial test at
level ``delta``.

Example:
    >>> round(upper_bound(0, 22, 0.1), 4), round(upper_bound(0, 21, 0.1), 4)
    (0.0994, 0.1038)
    >>> min_kept(0.9, 0.1)
    22
    >>> kept_needed(0.9, 0.1, agreement=0.95)
    65
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import beta


def upper_bound(k: int, n: int, delta: float) -> float:
    """One-sided ``1 - delta`` Clopper–Pearson upper bound on a rate with ``k`` of ``n``."""
    if n <= 0:
        return 1.0
    if k >= n:
        return 1.0
    return float(beta.ppf(1.0 - delta, k + 1, n - k))


def upper_bounds(k: np.ndarray, n: np.ndarray, delta: float) -> np.ndarray:
    """:func:`upper_bound` of arrays of counts at once."""
    k, n = np.asarray(k), np.asarray(n)
    open_ = (n > 0) & (k < n)
    out = np.ones(k.shape, float)
    out[open_] = beta.ppf(1.0 - delta, k[open_] + 1, n[open_] - k[open_])
    return out


def min_kept(target: float, delta: float) -> int:
    """The fewest kept items that could certify ``target`` at all (none of them disagreeing):
    the smallest ``n`` with ``(1 - risk) ** n <= delta``."""
    risk = 1.0 - target
    return max(1, math.ceil(math.log(delta) / math.log1p(-risk) - 1e-12))


def kept_needed(target: float, delta: float, agreement: float, limit: int = 10**6) -> int | None:
    """The fewest kept items at which a judge agreeing ``agreement`` of the time on them would
    certify ``target`` (disagreements rounded to the nearest count); None when it never
    would (``agreement`` at or below ``target``) or only beyond ``limit``."""
    risk, rate = 1.0 - target, 1.0 - agreement
    if rate >= risk:
        return None
    lo, hi = min_kept(target, delta), min_kept(target, delta)
    while upper_bound(round(rate * hi), hi, delta) > risk:
        if hi > limit:
            return None
        lo, hi = hi, hi * 2
    while lo < hi:  # the bound is not monotone in n by single steps: take the first n that works
        mid = (lo + hi) // 2
        if upper_bound(round(rate * mid), mid, delta) <= risk:
            hi = mid
        else:
            lo = mid + 1
    return hi
