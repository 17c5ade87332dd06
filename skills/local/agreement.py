"""How much each exemplar should pull a fit, from how firmly its raters agreed.

An exemplar's score is a mean of several raters. Its error about what a predictor could know
has two parts: the part no predictor explains (the spread of the true scores between items,
``τ²``) and the noise of the mean itself (``sd² / n``, large when few raters disagreed a lot).
The inverse of their sum is the textbook weight: items the raters agreed on pull the fit
more, but never by more than the between-item spread allows, so the weights stay moderate.
``τ²`` is estimated from the training rows only (their score variance minus the mean noise
variance). When any training row lacks rater information every weight is 1 (no weighting).

The local predictor applies them when ``JUDGE_LOCAL_WEIGHTS=agreement``
(:mod:`skills.local.settings`).

Example:
    >>> import numpy as np
    >>> w = agreement_weights(np.array([0.01, 0.2, 0.01]), np.array([1.0, 3.0, 5.0]),
    ...                       np.array([True, True, True]))
    >>> bool(w[1] < w[0]) and round(float(w.mean()), 6)
    1.0
"""

from __future__ import annotations

import numpy as np


def agreement_weights(var: np.ndarray, y: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Weights (mean 1 over ``rows``, 1 elsewhere) from the variance of each exemplar's mean
    score ``var`` (``nan`` = unknown) and the scores ``y``; all 1 when any row's variance is
    unknown."""
    w = np.ones(len(y))
    if rows.sum() < 2 or not np.isfinite(var[rows]).all():
        return w
    noise = float(np.mean(var[rows]))
    tau2 = max(float(np.var(y[rows])) - noise, 0.1 * float(np.var(y[rows])), 1e-6)
    raw = 1.0 / (tau2 + var[rows])
    w[rows] = raw / raw.mean()
    return w
