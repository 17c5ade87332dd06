"""Borrowing strength from a related scale: which other dimension of a memory stands in for
one whose own labels are a weak teacher.

Crowd scales of one image are often strongly related (in the AVT ratings, realism and quality
share most of their ordering) while one of them is much harder to learn from alone: its means
rest on the same few raters but its spread is dominated by a handful of unusual items. A
member fitted on the related scale's scores ("sibling") then predicts the hard scale's
*ordering* better than one fitted on its own labels. Whether it does is not assumed: the
sibling is one more member, and the stack (:mod:`skills.local.selection`) weighs it by inner
leave-one-group-out cross-validation like every other.

The sibling is the dimension whose scores correlate best (Spearman) with this dimension's on
the *training* rows that have both, provided that correlation is at least
:data:`MIN_SIBLING_RHO`; labels outside the training rows are never read, so nested
evaluation stays honest.

Example:
    >>> import numpy as np
    >>> ys = {"realism": np.array([1.0, 2, 3, 4, 5, 2]),
    ...       "quality": np.array([1.2, 2.1, 2.9, 4.2, 4.8, 1.9]),
    ...       "matching": np.array([5.0, 1, 4, 2, 3, 3])}
    >>> sibling_of("realism", ys, np.ones(6, bool))
    'quality'
    >>> sibling_of("matching", ys, np.ones(6, bool)) is None
    True
"""

from __future__ import annotations

import numpy as np
from scipy.stats import spearmanr

# Changing either number changes the choices: the code key of the cached choices changes with
# it (skills.local.code_key), so re-derive the shipped ones (tests/local/test_shipped_choices.py).
#: the weakest training-row correlation at which another scale may stand in
MIN_SIBLING_RHO = 0.5
MIN_SHARED_ROWS = 5


def sibling_of(dim: str, ys: dict[str, np.ndarray], rows: np.ndarray) -> str | None:
    """The dimension of ``ys`` (other than ``dim``) most correlated with ``dim`` on ``rows``,
    or None when none reaches :data:`MIN_SIBLING_RHO` on at least :data:`MIN_SHARED_ROWS`
    shared rows."""
    y = ys[dim]
    best: tuple[float, str] | None = None
    for other in sorted(ys):
        if other == dim:
            continue
        both = rows & np.isfinite(y) & np.isfinite(ys[other])
        if both.sum() < MIN_SHARED_ROWS or np.std(y[both]) == 0 or np.std(ys[other][both]) == 0:
            continue
        rho = float(spearmanr(y[both], ys[other][both])[0])
        if np.isfinite(rho) and rho >= MIN_SIBLING_RHO and (best is None or rho > best[0]):
            best = (rho, other)
    return None if best is None else best[1]
