"""From pairwise p-values to the field's summary: corrected significance, a wins/losses table
and significance clusters (ranks).

The family of a correction is every pair of metrics at one level, ``P = m (m − 1) / 2`` tests:

* :func:`bh` — Benjamini–Hochberg's step-up adjustment (the default): the expected share of
  false separations among the separations declared is at most ``alpha`` (for tests that are
  independent or positively dependent, as tests sharing the same items and swaps are expected
  to be);
* :func:`holm` — Holm's step-down adjustment: the chance of even one false separation is at most
  ``alpha``, under any dependence. Stricter: a permutation p-value is at least ``2 / (R + 1)``
  with ``R`` resamples, so Holm can separate nothing unless ``2 P / (R + 1) <= alpha`` (20
  metrics, 190 pairs: ``R >= 7,600``); :func:`resolution_note` says so.
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
    >>> clusters(corr, adjust_matrix(p, "holm"), ["a", "b", "c", "d"])
    {'a': 1, 'b': 1, 'c': 2, 'd': 2}
    >>> wins_losses(corr, adjust_matrix(p, "bh"), ["a", "b", "c", "d"])["c"]
    {'wins': 0, 'losses': 2}
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

__all__ = [
    "ALPHA",
    "CORRECTIONS",
    "adjust_matrix",
    "bh",
    "clusters",
    "holm",
    "order",
    "resolution_note",
    "wins_losses",
]

ALPHA = 0.05
CORRECTIONS = {
    "bh": "Benjamini–Hochberg (false discovery rate), over all pairs of metrics at the level",
    "holm": "Holm (family-wise error rate), over all pairs of metrics at the level",
    "none": "none (each pair tested at α on its own, as mt-metrics-eval does)",
}


def _stepwise(p: Sequence[float] | np.ndarray, step: str) -> np.ndarray:
    """The finite p-values sorted ascending, scaled and made monotone (``step``: ``holm`` or
    ``bh``), put back in the input's order; ``nan`` stays ``nan`` and is not counted."""
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    if not len(ok):
        return out
    sorted_idx = ok[np.argsort(p[ok], kind="stable")]
    k = len(ok)
    ps = p[sorted_idx]
    if step == "holm":  # step-down: (k − i) p_(i), running maximum
        adjusted = np.maximum.accumulate((k - np.arange(k)) * ps)
    else:  # step-up: k p_(i) / i, running minimum from the largest
        adjusted = np.minimum.accumulate((k * ps / np.arange(1, k + 1))[::-1])[::-1]
    out[sorted_idx] = np.minimum(adjusted, 1.0)
    return out


def holm(p: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values, in the input's order (``nan`` stays ``nan`` and is left out of
    the family).

    >>> holm([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    return _stepwise(p, "holm")


def bh(p: Sequence[float] | np.ndarray) -> np.ndarray:
    """Benjamini–Hochberg-adjusted p-values (q-values), in the input's order (``nan`` stays
    ``nan`` and is left out of the family).

    >>> bh([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    return _stepwise(p, "bh")


def adjust_matrix(p: np.ndarray, method: str = "bh") -> np.ndarray:
    """The correction ``method`` (``bh``, ``holm`` or ``none``) over the pairs of a symmetric
    p-value matrix (upper triangle), returned symmetric with ones on the diagonal."""
    if method not in CORRECTIONS:
        raise ValueError(f"unknown correction {method!r}; use one of {', '.join(CORRECTIONS)}")
    p = np.asarray(p, dtype=float)
    m = p.shape[0]
    iu = np.triu_indices(m, 1)
    adj = np.ones_like(p)
    correct: dict[str, Callable[[np.ndarray], np.ndarray]] = {
        "bh": bh,
        "holm": holm,
        "none": np.asarray,
    }
    adj[iu] = correct[method](p[iu])
    adj[(iu[1], iu[0])] = adj[iu]
    return adj


def resolution_note(
    n_metrics: int, n_resamples: int, method: str, alpha: float = ALPHA
) -> str | None:
    """Why no pair can be separated with so few resamples (``None`` when some can).

    >>> resolution_note(20, 1000, "holm")[:45]
    'with 1000 resamples no p-value is below 0.002'
    >>> resolution_note(20, 1000, "bh") is None
    True
    """
    pairs = n_metrics * (n_metrics - 1) // 2
    smallest = 2 / (n_resamples + 1)
    needed = {"holm": smallest * pairs, "bh": smallest, "none": smallest}[method]
    if pairs == 0 or needed <= alpha:
        return None
    least = (2 * pairs if method == "holm" else 2) / alpha - 1
    return (
        f"with {n_resamples} resamples no p-value is below {smallest:.2g}, so the "
        f"{method} correction over {pairs} pair(s) can separate no metric: give --n-perm "
        f"{int(np.ceil(least))} or more"
    )


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
