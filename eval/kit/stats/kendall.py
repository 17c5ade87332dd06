"""Kendall's τ-b between two paired samples, ties allowed: the one τ of the workflows.

τ_b = (C - D) / sqrt((n0 - n1) (n0 - n2)), with C and D the concordant and discordant pairs,
n0 = n (n - 1) / 2 and n1, n2 the pairs tied in the first and in the second sample. Computed
by :func:`scipy.stats.kendalltau` (``variant="b"``, O(n log n), which matters inside a
bootstrap); ``nan`` where τ-b is undefined (fewer than two pairs, or a side that is constant).
Callers choose how to show the undefined case and whether small samples count.

Example:
    >>> round(kendall_tau_b([1, 2, 3, 4], [1, 3, 2, 4]), 4)
    0.6667
    >>> kendall_tau_b([1, 1, 1], [1, 2, 3])
    nan
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.stats import kendalltau

__all__ = ["kendall_tau_b"]


def kendall_tau_b(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
    """τ-b of paired values (``nan`` when undefined); ``ValueError`` on unequal lengths."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"samples of different lengths ({len(a)} and {len(b)})")
    if a.size < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan")
    return float(kendalltau(a, b, variant="b").statistic)
