"""Pairwise accuracy of a metric against human scores, with ties (Deutsch et al., EMNLP 2023,
"Ties Matter"), the statistic GenAI-Bench reports next to the correlations.

Over every pair of items ``(i, j)``: the metric *agrees* with the humans when both order the
pair the same way, or when both call it a tie. The metric calls a pair a tie when its two
scores differ by at most ``epsilon``; humans call it a tie when their scores are equal.
``accuracy = agreeing pairs / all pairs``. A judge on a 1–5 scale ties often, so the
*tie-calibrated* accuracy picks the ``epsilon`` that maximises the accuracy, as the paper
proposes (the chosen ``epsilon`` is returned with it).

A judge's scores take few distinct values: the pairs are then counted from the groups of
equal scores, in ``O(k² n log n)`` for ``k`` values, exactly. Other metrics visit the pairs in
blocks of rows (``O(n²)`` time, bounded memory); their tie threshold is searched among the
metric gaps of the human-tied pairs, or, past 2,000 distinct gaps, among 2,000 quantiles of
them.

Example:
    >>> pairwise_accuracy([1, 2, 3], [1, 2, 3])
    1.0
    >>> pairwise_accuracy([1, 1, 3], [1, 2, 3])  # the (1, 2) pair: metric tie, humans not
    0.6666666666666666
    >>> tie_calibrated_accuracy([1.0, 1.5, 3.0], [2, 2, 5])
    (1.0, 0.5)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

__all__ = ["pairwise_accuracy", "tie_calibrated_accuracy"]

_TIE = 1e-9  # human scores are means of ratings: equal up to rounding
_BLOCK = 1024
_GROUPS = 64  # up to this many distinct metric values, count by groups
_CANDIDATES = 2000  # at most this many tie thresholds tried for a continuous metric


def _clean(
    metric: Sequence[float] | np.ndarray, human: Sequence[float] | np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    m = np.asarray(metric, dtype=float)
    h = np.asarray(human, dtype=float)
    if m.shape != h.shape:
        raise ValueError(f"metric and human differ in length: {len(m)} != {len(h)}")
    keep = np.isfinite(m) & np.isfinite(h)
    return m[keep], h[keep]


def pairwise_accuracy(
    metric: Sequence[float], human: Sequence[float], epsilon: float = 0.0
) -> float | None:
    """Share of item pairs on which the metric agrees with the humans (ties included); a
    metric tie is a difference of at most ``epsilon``. ``None`` with fewer than 2 items."""
    m, h = _clean(metric, human)
    if len(m) < 2:
        return None
    return float(_agreement(m, h, np.array([epsilon]))[0])


def tie_calibrated_accuracy(
    metric: Sequence[float] | np.ndarray, human: Sequence[float] | np.ndarray
) -> tuple[float | None, float]:
    """The highest pairwise accuracy over tie thresholds, and the threshold that gives it
    (the smallest one on equal accuracy)."""
    m, h = _clean(metric, human)
    if len(m) < 2:
        return None, 0.0
    candidates = _candidates(m, h)
    scores = _agreement(m, h, candidates)
    best = int(np.argmax(scores))  # the first (smallest) threshold on equal accuracy
    return float(scores[best]), float(candidates[best])


def _agreement(m: np.ndarray, h: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """Accuracy at each threshold of ``eps``."""
    values = np.unique(m)
    if len(values) <= _GROUPS:
        gaps, tied, ordered = _grouped(m, h, values)
        tie = gaps[None, :] <= eps[:, None] + _TIE  # (thresholds, gaps): the metric ties
        agree = (tie * tied[None, :]).sum(axis=1) + (~tie * ordered[None, :]).sum(axis=1)
    else:
        agree = np.zeros(len(eps), dtype=np.int64)
        for dm, dh in _blocks(m, h):
            human_tie = np.abs(dh) <= _TIE
            tie_gaps = np.sort(np.abs(dm[human_tie]))
            order_gaps = np.sort(np.abs(dm[~human_tie & (dm * dh > 0)]))
            agree += np.searchsorted(tie_gaps, eps + _TIE, side="right")
            agree += len(order_gaps) - np.searchsorted(order_gaps, eps + _TIE, side="right")
    n = len(m)
    return agree / (n * (n - 1) // 2)


def _candidates(m: np.ndarray, h: np.ndarray) -> np.ndarray:
    """0 and the metric gaps of human-tied pairs: the only thresholds where accuracy can
    rise (at most ``_CANDIDATES`` of them, as quantiles, for a continuous metric)."""
    values = np.unique(m)
    if len(values) <= _GROUPS:
        gaps, tied, _ = _grouped(m, h, values)
        found = gaps[(tied > 0) & (gaps > 0)]
    else:
        parts = [np.unique(np.abs(dm[np.abs(dh) <= _TIE])) for dm, dh in _blocks(m, h)]
        found = np.unique(np.concatenate(parts)) if parts else np.array([])
        found = found[found > 0]
        if len(found) > _CANDIDATES:
            found = np.unique(np.quantile(found, np.linspace(0, 1, _CANDIDATES)))
    return np.concatenate([[0.0], found])


def _blocks(m: np.ndarray, h: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(metric difference, human difference) of every pair ``i < j``, a block of rows at a
    time."""
    n = len(m)
    cols = np.arange(n)
    for start in range(0, n, _BLOCK):
        rows = np.arange(start, min(n, start + _BLOCK))
        upper = cols[None, :] > rows[:, None]
        yield (m[rows, None] - m[None, :])[upper], (h[rows, None] - h[None, :])[upper]


def _grouped(
    m: np.ndarray, h: np.ndarray, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per distinct metric gap: the pairs the humans tie, and the pairs the metric orders as
    the humans do. Within a group of equal metric values the metric ties every pair; between
    groups ``a < b`` it ranks ``b`` higher, as the humans do when they scored ``b``'s item
    higher."""
    groups = [np.sort(h[m == v]) for v in values]
    counts: dict[float, list[int]] = {}
    for i, hi in enumerate(groups):
        _, per_value = np.unique(np.round(hi / _TIE) * _TIE, return_counts=True)
        counts.setdefault(0.0, [0, 0])[0] += int((per_value * (per_value - 1) // 2).sum())
        for j in range(i + 1, len(groups)):
            hj = groups[j]
            below = np.searchsorted(hi, hj - _TIE, side="left")  # items of i scored lower
            upto = np.searchsorted(hi, hj + _TIE, side="right")  # ... or equal
            cell = counts.setdefault(float(values[j] - values[i]), [0, 0])
            cell[0] += int((upto - below).sum())
            cell[1] += int(below.sum())
    gaps = np.array(sorted(counts), dtype=float)
    tied = np.array([counts[g][0] for g in gaps], dtype=np.int64)
    ordered = np.array([counts[g][1] for g in gaps], dtype=np.int64)
    return gaps, tied, ordered
