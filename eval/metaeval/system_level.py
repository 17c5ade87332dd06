"""System-level agreement: does a metric rank the generators as the people do?

Each system (generator) gets its mean human rating and, per metric, its mean score over the
same items. The two lists of means are compared with

* Kendall's τ-b (ties on either side allowed),
* Pearson's r,
* pairwise system accuracy: the share of the ``k (k − 1) / 2`` pairs of systems that the
  metric orders as the humans do (Kocmi et al., 2021, as mt-metrics-eval computes it: the
  signs of the two differences agree; a pair both sides tie counts as agreement, a pair only
  one side ties as disagreement). Two means closer than ``TIE`` are a tie.

Intervals: percentile bootstrap over items, resampled *within each system* (a resample keeps
every system's number of items; humans and metrics see the same draws). They show how much
the figures move with the items, for these systems: with few systems a figure takes only a
few values (τ moves in steps of ``2 / (k (k − 1) / 2)``), so below ``FEW_SYSTEMS`` systems no
interval is given and a note says why; below 3 systems no correlation is defined at all.

Example:
    >>> import numpy as np
    >>> sys = np.repeat(["a", "b", "c", "d", "e"], 2)
    >>> h = np.array([1, 2, 2, 3, 3, 4, 4, 5, 5, 5.0])
    >>> out = system_agreement({"m": h * 2}, h, sys, n_boot=0)
    >>> out["metrics"]["m"]["kendall"], out["metrics"]["m"]["pairwise_accuracy"]
    (1.0, 1.0)
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from eval.kit.stats import percentile_ci

__all__ = ["FEW_SYSTEMS", "TIE", "system_agreement", "system_stats"]

FEW_SYSTEMS = 5
"""Below this many systems, no interval (a figure over so few pairs is too coarse)."""
TIE = 1e-9
_CELLS = 4_000_000
STATS = ("kendall", "pearson", "pairwise_accuracy")


def _signs(x: np.ndarray) -> np.ndarray:
    """Signs of every pair difference ``x[j] − x[i]``, i < j, on the last axis."""
    k = x.shape[-1]
    i, j = np.triu_indices(k, 1)
    d = x[..., j] - x[..., i]
    scale = np.maximum(1.0, np.abs(x).max(-1, keepdims=True))
    return np.where(np.abs(d) <= TIE * scale, 0, np.sign(d))


def system_stats(metric: np.ndarray, human: np.ndarray) -> dict[str, np.ndarray]:
    """τ-b, Pearson r and pairwise accuracy of system means, row-wise on the last axis
    (``nan`` where undefined: fewer than 3 systems for the correlations, 2 for the accuracy,
    or a constant side)."""
    m = np.asarray(metric, dtype=float)
    h = np.broadcast_to(np.asarray(human, dtype=float), m.shape)
    k = m.shape[-1]
    sm, sh = _signs(m), _signs(h)
    n0 = k * (k - 1) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = (sm * sh).sum(-1) / np.sqrt((n0 - (sm == 0).sum(-1)) * (n0 - (sh == 0).sum(-1)))
        mc = m - m.mean(-1, keepdims=True)
        hc = h - h.mean(-1, keepdims=True)
        r = (mc * hc).sum(-1) / np.sqrt((mc * mc).sum(-1) * (hc * hc).sum(-1))
    flat = (np.ptp(m, -1) == 0) | (np.ptp(h, -1) == 0) | (k < 3)
    acc = (sm == sh).mean(-1) if k >= 2 else np.full(m.shape[:-1], np.nan)
    return {
        "kendall": np.where(flat, np.nan, tau),
        "pearson": np.where(flat, np.nan, np.clip(r, -1, 1)),
        "pairwise_accuracy": acc,
    }


def _value(x: Any) -> float | None:
    x = float(x)
    return x if np.isfinite(x) else None


def _bootstrap(data: np.ndarray, members: list[np.ndarray], n_boot: int, seed: int) -> np.ndarray:
    """(n_boot, rows, systems) means of ``data`` (rows × items) over items drawn with
    replacement within each system."""
    rng = np.random.default_rng(seed)
    out = np.empty((n_boot, data.shape[0], len(members)))
    for s, idx in enumerate(members):
        step = max(1, _CELLS // max(1, len(idx) * data.shape[0]))
        for start in range(0, n_boot, step):
            k = min(step, n_boot - start)
            draws = rng.integers(0, len(idx), size=(k, len(idx)))
            out[start : start + k, :, s] = data[:, idx][:, draws].mean(-1).T
    return out


def system_agreement(
    scores: Mapping[str, np.ndarray],
    human: np.ndarray,
    systems: np.ndarray,
    *,
    n_boot: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """Per metric, its system means and their agreement with the humans' system means.

    ``scores`` maps each metric to one score per item, aligned with ``human`` and
    ``systems`` (every value finite: the caller keeps the items every metric scored).
    """
    labels = np.asarray(systems).astype(str)
    names = sorted(set(labels.tolist()))
    members = [np.flatnonzero(labels == s) for s in names]
    k = len(names)
    data = np.vstack([np.asarray(human, float)] + [np.asarray(v, float) for v in scores.values()])
    means = np.stack([data[:, idx].mean(1) for idx in members], axis=1)  # rows × systems
    point = system_stats(means[1:], means[0])
    note = None
    if k < 3:
        note = f"{k} system(s): a ranking of systems needs at least 3 for τ and r"
    elif k < FEW_SYSTEMS:
        note = (
            f"only {k} systems ({k * (k - 1) // 2} pairs): each figure takes a handful of "
            f"values, so no interval is given (from {FEW_SYSTEMS} systems on)"
        )
    ci = np.full((len(scores), len(STATS), 2), np.nan)
    if n_boot > 0 and k >= FEW_SYSTEMS:
        boot = _bootstrap(data, members, n_boot, seed)
        stats = system_stats(boot[:, 1:, :], boot[:, :1, :])  # (n_boot, metrics) each
        with warnings.catch_warnings():  # a constant metric: every resample undefined
            warnings.simplefilter("ignore", RuntimeWarning)
            for s, name in enumerate(STATS):
                ci[:, s, :] = percentile_ci(stats[name])
    metrics = {}
    for row, metric in enumerate(scores):
        metrics[metric] = {
            "means": dict(zip(names, (float(v) for v in means[row + 1]), strict=True)),
            **{s: _value(point[s][row]) for s in STATS},
            "ci95": {
                s: [_value(ci[row, c, 0]), _value(ci[row, c, 1])] for c, s in enumerate(STATS)
            },
        }
    return {
        "systems": names,
        "n_systems": k,
        "items_per_system": {s: len(idx) for s, idx in zip(names, members, strict=True)},
        "human_means": dict(zip(names, (float(v) for v in means[0]), strict=True)),
        "metrics": metrics,
        "note": note,
        "resampling": "items resampled with replacement within each system (percentile, "
        f"{n_boot} resamples)"
        if n_boot > 0 and k >= FEW_SYSTEMS
        else None,
    }
