"""Split-conformal intervals around the judge's 1–5 ratings.

On calibration items the nonconformity of a rating is ``|human - judge|``. Its quantile of
rank ``ceil((n + 1)(1 - alpha))`` makes ``judge ± quantile`` hold a new item's human rating
with probability at least ``1 - alpha`` (calibration and new items exchangeable). The ordinal
adjustment: when people rate in whole points, the interval's ends are moved inward to whole
points (:func:`judge.trust.apply.interval`), which keeps exactly the same whole ratings inside,
so the guarantee is unchanged and the interval reads as ratings. When the human value is a mean
of several raters (not a whole point) the ends are left as they are.

Example:
    >>> spec = rating_interval([3.0, 4.2, 2.5, 5.0] * 10, [3, 4, 3, 4] * 10, alpha=0.1)
    >>> spec.quantile, spec.step, spec.n
    (1.0, 1.0, 40)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from judge.trust.policy import Interval

SCALE = (1.0, 5.0)


def conformal_quantile(residuals: Sequence[float], alpha: float) -> float | None:
    """The split-conformal quantile of ``residuals`` for level ``1 - alpha``; None when there
    are too few (fewer than ``1 / alpha - 1``) to give one."""
    n = len(residuals)
    rank = math.ceil((n + 1) * (1.0 - alpha) - 1e-12)
    if n == 0 or rank > n:
        return None
    return float(np.sort(np.asarray(residuals, dtype=float))[rank - 1])


def rating_interval(
    judge: Sequence[float], human: Sequence[float], alpha: float
) -> Interval | None:
    """The interval spec of one rating kind, or None with too few items."""
    residuals = [abs(h - j) for j, h in zip(judge, human, strict=True)]
    q = conformal_quantile(residuals, alpha)
    if q is None:
        return None
    whole = all(float(h).is_integer() for h in human)
    covered = sum(r <= q + 1e-9 for r in residuals) / len(residuals)
    return Interval(
        alpha=alpha, quantile=round(q, 6), n=len(residuals), scale=SCALE,
        step=1.0 if whole else None, coverage=round(covered, 4),
    )  # fmt: skip


def items_for_interval(alpha: float) -> int:
    """The fewest rated calibration items that give an interval at level ``1 - alpha``.

    >>> items_for_interval(0.1)
    9
    """
    return math.ceil(1.0 / alpha - 1.0 - 1e-12)
