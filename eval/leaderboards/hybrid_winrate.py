"""Prediction-powered win rates: each model's share of wins among the items it plays in.

A model's win rate is a mean over its items of its outcome (1 won, 0 lost, 0.5 tie), so each
model is one PPI++ mean (:func:`eval.kit.stats.ppi.ppi_mean`) with its own tuned ``lam``:
its hybrid interval is never wider than its human-only one. Scores are percentages.

Example:
    >>> import numpy as np
    >>> a, b = np.zeros(6, int), np.ones(6, int)
    >>> y = np.array([1, 1, 0, np.nan, np.nan, np.nan]); yhat = np.array([1, 1, 0, 1, 0, 1.0])
    >>> est = winrate_estimates(2, a, b, y, yhat, lam=0.0)
    >>> [round(float(s), 1) for s in est["hybrid"][0]]
    [66.7, 33.3]
"""

from __future__ import annotations

import numpy as np

from eval.kit.stats.clusters import cluster_cov
from eval.kit.stats.ppi import ppi_mean

__all__ = ["winrate_estimates"]


def _mean_se(x: np.ndarray, clusters: np.ndarray | None) -> float:
    """Standard error of the mean of ``x``: independent items, or summed within clusters."""
    if clusters is None:
        return float(x.std() / np.sqrt(x.size))
    return float(np.sqrt(cluster_cov((x - x.mean()) / x.size, clusters)[0, 0]))


def winrate_estimates(
    m: int,
    a: np.ndarray,
    b: np.ndarray,
    y: np.ndarray,
    yhat: np.ndarray,
    *,
    pi: np.ndarray | None = None,
    lam: float | None = None,
    clusters: np.ndarray | None = None,
) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``{"hybrid"|"human"|"judge"|"bias": (scores, standard errors, lam)}``, one value per
    model (nan where a model has fewer than 2 human-labelled items). ``bias`` is the judge's
    win rate minus the humans' on the labelled items (weighted by ``1/pi`` when given).
    ``clusters``: each item's cluster (its prompt) for cluster-robust variances."""
    y = np.asarray(y, float)
    yhat = np.asarray(yhat, float)
    out = {k: (np.full(m, np.nan), np.full(m, np.nan), np.full(m, np.nan)) for k in
           ("hybrid", "human", "judge", "bias")}  # fmt: skip
    for i in range(m):
        mine = (a == i) | (b == i)
        yi = np.where(a == i, y, 1 - y)[mine]
        yh = np.where(a == i, yhat, 1 - yhat)[mine]
        lab = ~np.isnan(yi)
        if yh.size:
            out["judge"][0][i] = 100 * yh.mean()
            out["judge"][1][i] = 100 * _mean_se(yh, None if clusters is None else clusters[mine])
        if lab.sum() < 2:
            continue
        p = None if pi is None else np.asarray(pi, float)[mine]
        pis = {} if p is None else {"pi": p[lab], "pi_unlabelled": p[~lab]}
        if clusters is not None:
            g = np.asarray(clusters)[mine]
            pis.update(clusters=g[lab], clusters_unlabelled=g[~lab])
        runs = {
            "hybrid": ppi_mean(yi[lab], yh[lab], yh[~lab], lam=lam, **pis),
            "human": ppi_mean(yi[lab], yh[lab], yh[~lab], lam=0.0, **pis),
            "bias": ppi_mean(yh[lab] - yi[lab], yh[lab], np.zeros((~lab).sum()), lam=0.0, **pis),
        }
        for name, est in runs.items():
            out[name][0][i] = 100 * est.estimate
            out[name][1][i] = 100 * est.se
            out[name][2][i] = est.lam
    return out
