"""From pairwise p-values to the field's summary: Holm-corrected significance, a wins/losses
table and significance clusters (ranks).

* :func:`holm` — Holm's step-down adjustment of a family of p-values (strong control of the
  family-wise error rate under any dependence between the tests). The family is every pair of
  metrics at one level, ``m (m − 1) / 2`` tests.
* :func:`clusters` — ranks as Google's mt-metrics-eval assigns them (``AssignRanks``): the
  metrics sorted by correlation, best first; walking down the list, a metric opens a new rank
  when some metric of the current rank (from the rank's first metric up to the one just above
  it) beats it significantly. Rank 1 is then the best metric with every metric below it that no
  test separates from any metric of rank 1 above it.
* :func:`wins_losses` — per metric, how many others it beats significantly and how many beat it.

"Beats significantly" means a higher correlation and an adjusted p-value of at most ``alpha``.

Example:
    >>> import numpy as np
    >>> corr = np.array([0.60, 0.58, 0.30, 0.29])
    >>> p = np.array([[1, .5, .001, .001], [.5, 1, .002, .002], [.001, .002, 1, .9],
    ...               [.001, .002, .9, 1]])
    >>> clusters(corr, holm_matrix(p), ["a", "b", "c", "d"])
    {'a': 1, 'b': 1, 'c': 2, 'd': 2}
    >>> wins_losses(corr, holm_matrix(p), ["a", "b", "c", "d"])["c"]
    {'wins': 0, 'losses': 2}
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["ALPHA", "clusters", "holm", "holm_matrix", "order", "wins_losses"]

ALPHA = 0.05


def holm(p: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values, in the input's order (``nan`` stays ``nan`` and is left out of
    the family).

    >>> holm([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    if not len(ok):
        return out
    sorted_idx = ok[np.argsort(p[ok], kind="stable")]
    k = len(ok)
    stepped = np.maximum.accumulate((k - np.arange(k)) * p[sorted_idx])
    out[sorted_idx] = np.minimum(stepped, 1.0)
    return out


def holm_matrix(p: np.ndarray) -> np.ndarray:
    """:func:`holm` over the pairs of a symmetric p-value matrix (upper triangle), returned
    symmetric with ones on the diagonal."""
    p = np.asarray(p, dtype=float)
    m = p.shape[0]
    iu = np.triu_indices(m, 1)
    adj = np.ones_like(p)
    adj[iu] = holm(p[iu])
    adj[(iu[1], iu[0])] = adj[iu]
    return adj


def order(corr: np.ndarray, names: Sequence[str]) -> list[int]:
    """Indices of the metrics with a defined correlation, best first (ties by name)."""
    ok = [i for i in range(len(names)) if np.isfinite(corr[i])]
    return sorted(ok, key=lambda i: (-float(corr[i]), names[i]))


def _beats(corr: np.ndarray, p: np.ndarray, a: int, b: int, alpha: float) -> bool:
    return bool(corr[a] > corr[b] and np.isfinite(p[a, b]) and p[a, b] <= alpha)


def clusters(
    corr: np.ndarray, p: np.ndarray, names: Sequence[str], alpha: float = ALPHA
) -> dict[str, int]:
    """Rank of each metric (1 = the top cluster); metrics with no correlation get none."""
    ranks: dict[str, int] = {}
    rank, start = 1, 0
    ranked = order(corr, names)
    for pos, i in enumerate(ranked):
        if any(_beats(corr, p, j, i, alpha) for j in ranked[start:pos]):
            rank, start = rank + 1, pos
        ranks[names[i]] = rank
    return ranks


def wins_losses(
    corr: np.ndarray, p: np.ndarray, names: Sequence[str], alpha: float = ALPHA
) -> dict[str, dict[str, int]]:
    """Per metric: ``wins`` (metrics it beats significantly) and ``losses``."""
    m = len(names)
    return {
        names[a]: {
            "wins": sum(_beats(corr, p, a, b, alpha) for b in range(m) if b != a),
            "losses": sum(_beats(corr, p, b, a, alpha) for b in range(m) if b != a),
        }
        for a in range(m)
    }
