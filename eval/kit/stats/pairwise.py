"""Pairwise accuracy of a metric against human scores, with ties (Deutsch et al., EMNLP 2023,
"Ties Matter"), the statistic GenAI-Bench reports next to the correlations.

Over every pair of items ``(i, j)``: the metric *agrees* with the humans when both order the
pair the same way, or when both call it a tie. The metric calls a pair a tie when its two
scores differ by at most ``epsilon``; humans call it a tie when their scores are equal.
``accuracy = agreeing pairs / all pairs``. A judge on a 1–5 scale ties often, so the
*tie-calibrated* accuracy picks the ``epsilon`` that maximises the accuracy, as the paper
proposes (the chosen ``epsilon`` is returned with it).

Memory stays bounded on large sets: pairs are visited in blocks of rows.

Example:
    >>> pairwise_accuracy([1, 2, 3], [1, 2, 3])
    1.0
    >>> pairwise_accuracy([1, 1, 3], [1, 2, 3])  # the (1, 2) pair: metric tie, humans not
    0.6666666666666666
    >>> tie_calibrated_accuracy([1.0, 1.5, 3.0], [2, 2, 5])
    (1.0, 0.5)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["pairwise_accuracy", "tie_calibrated_accuracy"]

_TIE = 1e-9  # human scores are means of ratings: equal up to rounding
_BLOCK = 1024


def _clean(metric: Sequence[float], human: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
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
    acc, _ = _accuracy_at(metric, human, [epsilon])
    return acc


def tie_calibrated_accuracy(
    metric: Sequence[float], human: Sequence[float]
) -> tuple[float | None, float]:
    """The highest pairwise accuracy over tie thresholds, and the threshold that gives it
    (the smallest one on equal accuracy)."""
    m, h = _clean(metric, human)
    candidates = [0.0, *sorted({float(v) for v in _pair_metric_gaps_of_human_ties(m, h)})]
    return _accuracy_at(m, h, candidates)


def _pair_metric_gaps_of_human_ties(m: np.ndarray, h: np.ndarray) -> set[float]:
    """The metric differences of human-tied pairs: the only thresholds where accuracy can
    rise."""
    gaps: set[float] = set()
    n = len(m)
    cols = np.arange(n)
    for start in range(0, n, _BLOCK):
        rows = np.arange(start, min(n, start + _BLOCK))
        upper = cols[None, :] > rows[:, None]
        dh = np.abs(h[rows, None] - h[None, :])[upper]
        dm = np.abs(m[rows, None] - m[None, :])[upper]
        gaps |= set(np.unique(dm[dh <= _TIE]).tolist())
    return gaps


def _accuracy_at(
    metric: Sequence[float], human: Sequence[float], thresholds: Sequence[float]
) -> tuple[float | None, float]:
    m, h = _clean(metric, human)
    n = len(m)
    if n < 2:
        return None, float(thresholds[0]) if thresholds else 0.0
    eps = np.asarray(sorted(thresholds), dtype=float)
    agree = np.zeros(len(eps), dtype=np.int64)
    total = 0
    cols = np.arange(n)
    for start in range(0, n, _BLOCK):
        rows = np.arange(start, min(n, start + _BLOCK))
        upper = cols[None, :] > rows[:, None]
        dm = np.abs(m[rows, None] - m[None, :])[upper]
        dh = (h[rows, None] - h[None, :])[upper]
        sm = np.sign((m[rows, None] - m[None, :])[upper])
        total += len(dm)
        human_tie = np.abs(dh) <= _TIE
        same_order = (~human_tie) & (sm * dh > 0)
        tie_gaps = np.sort(dm[human_tie])
        order_gaps = np.sort(dm[same_order])
        # metric tie iff gap <= eps: tied pairs agree when gap <= eps, ordered when gap > eps
        agree += np.searchsorted(tie_gaps, eps, side="right")
        agree += len(order_gaps) - np.searchsorted(order_gaps, eps, side="right")
    best = int(np.argmax(agree))  # argmax: the first (smallest) threshold on equal accuracy
    return float(agree[best] / total), float(eps[best])
