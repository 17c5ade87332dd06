"""Krippendorff's α from the coincidence matrix (Krippendorff 2011, "Computing Krippendorff's
Alpha-Reliability") for nominal, ordinal, interval and ratio data, any number of raters,
missing ratings allowed.

>>> data = [[1, 1, None], [2, 2, 2], [3, 3, 3], [4, 4, 4]]   # units x raters
>>> krippendorff_alpha(data, "interval")
1.0
>>> round(krippendorff_alpha([[1, 2], [2, 2], [3, 3]], "interval"), 3)  # 1 - 5 * 2 / 34
0.706
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

__all__ = ["Level", "krippendorff_alpha"]

Level = Literal["nominal", "ordinal", "interval", "ratio"]


def _matrix(ratings: Sequence[Sequence[float | None]] | np.ndarray) -> np.ndarray:
    rows = [[np.nan if v is None else float(v) for v in row] for row in ratings]
    if not rows:
        return np.empty((0, 0))
    width = {len(r) for r in rows}
    if len(width) != 1:
        raise ValueError("ratings must be a rectangular units x raters matrix (None = missing)")
    return np.array(rows, dtype=float)


def _delta2(values: np.ndarray, n_c: np.ndarray, level: str) -> np.ndarray:
    """Squared distance δ²(c, k) between every pair of observed values."""
    c, k = values[:, None], values[None, :]
    if level == "nominal":
        return (c != k).astype(float)
    if level == "interval":
        return (c - k) ** 2
    if level == "ratio":
        with np.errstate(invalid="ignore", divide="ignore"):
            d = np.where(c + k == 0, 0.0, (c - k) / np.where(c + k == 0, 1.0, c + k))
        return d**2
    if level == "ordinal":
        # δ²(c, k) = (Σ_{g=c..k} n_g - (n_c + n_k) / 2)², values in rank order.
        idx = np.arange(len(n_c))
        lo, hi = np.minimum.outer(idx, idx), np.maximum.outer(idx, idx)
        between = np.cumsum(n_c)[hi] - np.cumsum(n_c)[lo] + n_c[lo]
        return (between - (n_c[lo] + n_c[hi]) / 2) ** 2
    raise ValueError(f"unknown level {level!r}; expected nominal, ordinal, interval or ratio")


def krippendorff_alpha(
    ratings: Sequence[Sequence[float | None]] | np.ndarray,
    level: Level = "interval",
) -> float:
    """Krippendorff's α for a ``units x raters`` matrix (``None``/``nan`` = missing).

    Coincidence-matrix formulation: every unit ``u`` with ``m_u >= 2`` ratings contributes
    each ordered pair of its ratings (from different raters) with weight ``1 / (m_u - 1)`` to
    ``o[c, k]``; ``n_c = Σ_k o[c, k]``, ``n = Σ_c n_c`` (the pairable ratings) and

        α = 1 - (n - 1) Σ o[c, k] δ²(c, k) / Σ n_c n_k δ²(c, k).

    ``δ²`` is ``[c != k]`` (nominal), ``(c - k)²`` (interval), ``((c - k) / (c + k))²``
    (ratio) or, for ordinal data, ``(Σ_{g=c..k} n_g - (n_c + n_k) / 2)²`` over the observed
    values in rank order (so it depends on how often each value was used).

    Edge cases: units with fewer than 2 ratings are ignored (they are not pairable). If no
    unit is pairable, or all pairable ratings share one value (no variation, so expected
    disagreement is 0), α is undefined and ``nan`` is returned -- we do *not* report 1.0
    for data that cannot show disagreement. With variation and no disagreement α is 1.0.

    >>> round(krippendorff_alpha([[1, 1], [2, 1], [3, 3]], "nominal"), 3)  # 1 - 5 * 2 / 22
    0.545
    >>> import math
    >>> math.isnan(krippendorff_alpha([[2, 2], [2, 2]]))
    True
    """
    m = _matrix(ratings)
    if m.size == 0:
        return float("nan")
    present = np.isfinite(m)
    per_unit = present.sum(axis=1)
    m, present, per_unit = m[per_unit >= 2], present[per_unit >= 2], per_unit[per_unit >= 2]
    if m.shape[0] == 0:
        return float("nan")
    values, inverse = np.unique(m[present], return_inverse=True)
    # counts[u, v]: how many raters gave value v to unit u
    counts = np.zeros((m.shape[0], len(values)))
    unit_of = np.nonzero(present)[0]
    np.add.at(counts, (unit_of, inverse), 1.0)
    w = 1.0 / (per_unit - 1.0)
    o = (counts * w[:, None]).T @ counts - np.diag((counts * w[:, None]).sum(axis=0))
    n_c = o.sum(axis=1)
    n = n_c.sum()
    d2 = _delta2(values, n_c, level)
    expected = float(np.sum(np.outer(n_c, n_c) * d2))
    if expected <= 0 or n <= 1:
        return float("nan")
    observed = float(np.sum(o * d2))
    return float(1.0 - (n - 1.0) * observed / expected)
