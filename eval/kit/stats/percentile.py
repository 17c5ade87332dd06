"""The percentile interval of bootstrap samples, column by column.

Example:
    >>> import numpy as np
    >>> percentile_ci(np.array([[0.0, 1.0], [1.0, np.nan], [2.0, 3.0]]), alpha=0.5).tolist()
    [[0.5, 1.5], [1.5, 2.5]]
"""

from __future__ import annotations

import numpy as np

__all__ = ["percentile_ci"]


def percentile_ci(samples: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """(M, 2) percentile interval per column of a (B, M) array (nan rows skipped)."""
    return np.nanquantile(samples, [alpha / 2, 1 - alpha / 2], axis=0).T
