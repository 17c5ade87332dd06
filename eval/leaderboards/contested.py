"""Which model pairs are still unresolved: a weight per item for spending human votes.

Humans are worth most on the model pairs whose order is still in doubt. From a Bradley–Terry
board fitted on the votes available (the judge's alone, or the hybrid of the judge's and the
humans' so far), each pair ``(a, b)`` gets the two-sided p-value of "the two are level",

    r_ab = 2 (1 - Phi(|s_a - s_b| / se(s_a - s_b)))

(1 when the scores are equal; 0.05 when the difference is just significant; near 0 when the
order is settled). The judge-only board's intervals say nothing of what *humans* would
resolve: they shrink with the judge's many votes. So on the judge-only board the standard
error is widened by ``sqrt(N / budget)`` (the width of a board on ``budget`` of the ``N``
items): the question becomes "would the humans' votes at this budget settle the pair?".
A hybrid board (later rounds) is taken at its own intervals.

The selection rule multiplies the judge-uncertainty weight by ``1 + boost * r`` (see
:mod:`eval.leaderboards.selection`); the weights are fixed before anything is drawn, so the
probabilities stay exact and the weighted estimator unbiased.

Example:
    >>> import numpy as np
    >>> a, b = np.array([0, 0, 1] * 50), np.array([1, 2, 2] * 50)
    >>> yhat = np.tile([1, 0.9, 1, 0, 0.9, 0.8], 25)        # 0 ~ 1, both beat 2
    >>> r = pair_unresolved(3, a, b, yhat, widen=1.0)
    >>> [round(float(v), 3) for v in r[:3]]
    [1.0, 0.0, 0.0]
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from eval.leaderboards.hybrid_bt import BTFit, DegenerateFit, fit_judge_bt

__all__ = ["pair_unresolved", "unresolved_from_fit"]


def unresolved_from_fit(fit: BTFit, a: np.ndarray, b: np.ndarray, widen: float = 1.0) -> np.ndarray:
    """``r`` of each item's pair ``(a_i, b_i)`` from a fit with the scores' covariance."""
    if fit.cov is None:
        raise ValueError("the board has no covariance of its scores")
    cov = fit.cov
    var = cov[a, a] + cov[b, b] - 2 * cov[a, b]
    se = widen * np.sqrt(np.clip(var, 1e-18, None))
    z = np.abs(fit.scores[a] - fit.scores[b]) / se
    return 2 * (1 - ndtr(z))


def pair_unresolved(
    m: int,
    a: np.ndarray,
    b: np.ndarray,
    yhat: np.ndarray,
    *,
    widen: float,
    clusters: np.ndarray | None = None,
) -> np.ndarray:
    """``r`` of each item's pair from the judge-only board, its standard errors times
    ``widen``; all ones (no pair preferred) when the judge's votes give no finite board."""
    try:
        fit = fit_judge_bt(m, a, b, yhat, clusters=clusters)
    except DegenerateFit:
        return np.ones(np.asarray(a).size)
    return unresolved_from_fit(fit, np.asarray(a), np.asarray(b), widen)
