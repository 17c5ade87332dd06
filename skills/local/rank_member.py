"""A single quality score as a member predictor: its rank among the training exemplars,
mapped to the score scale by a (weighted) straight line fitted on those exemplars.

Ranks make a classic score such as BRISQUE or NIQE usable as it is: its direction (lower is
better for both) and its scale are learnt from the training rows, and an outlying value
cannot pull a prediction beyond the training range. Entered into the stack as members, they
let the stack match the best single classic model when that model is the best there is.

Example:
    >>> import numpy as np
    >>> x, y = np.array([30.0, 10.0, 20.0]), np.array([1.0, 5.0, 3.0])
    >>> [round(float(v), 2) for v in rank_predict(x, y, np.ones(3), np.array([10.0, 20.0]))]
    [5.0, 3.0]
"""

from __future__ import annotations

import numpy as np


def rank_position(train: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Mid-rank position of each of ``values`` among ``train``, in [0, 1]."""
    order = np.sort(train)
    lo = np.searchsorted(order, values, side="left")
    hi = np.searchsorted(order, values, side="right")
    return (lo + hi) / (2.0 * len(order))


def rank_predict(x: np.ndarray, y: np.ndarray, w: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Fit ``y ≈ a + b · rank(x)`` on the training rows (weights ``w``) and predict for
    ``query`` values; the training mean when the ranks do not vary."""
    r = rank_position(x, x)
    q = rank_position(x, np.atleast_1d(query))
    if len(r) < 3 or np.std(r) == 0:
        return np.full(len(q), float(np.average(y, weights=w)))
    b, a = np.polyfit(r, y, 1, w=np.sqrt(w))
    return a + b * q
