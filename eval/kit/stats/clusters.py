"""Cluster-robust variance: sum each cluster's contributions before squaring them.

An estimator that is (to first order) a sum of per-item contributions ``c_i`` has variance
``sum_i c_i c_i^T`` when the items are independent. When items come in clusters that are
correlated inside (several model pairs or criteria voted on one prompt), the contributions
of one cluster are added up first and the variance is ``G/(G-1) sum_g C_g C_g^T`` with
``C_g = sum_{i in g} c_i`` (the "CR1" sandwich of Liang & Zeger 1986; ``G`` clusters): it
stays honest whatever the correlation inside a cluster, as long as clusters are independent.
With one item per cluster it is the independent variance (times ``G/(G-1)``).

Example:
    >>> import numpy as np
    >>> c = np.array([[1.0], [1.0], [-1.0], [-1.0]])
    >>> float(cluster_cov(c, np.array([0, 1, 2, 3]))[0, 0])        # independent: 4 * 4/3
    5.333333333333333
    >>> float(cluster_cov(c, np.array([0, 0, 1, 1]))[0, 0])        # two tight clusters
    16.0
"""

from __future__ import annotations

import numpy as np

__all__ = ["cluster_cov", "cluster_ids", "cluster_sums", "shares_clusters"]


def cluster_ids(labels: object) -> np.ndarray:
    """Integer cluster ids ``0..G-1`` for any labels (strings, numbers), one per item."""
    return np.unique(np.asarray(labels), return_inverse=True)[1].ravel()


def shares_clusters(clusters: np.ndarray | None) -> bool:
    """Whether any cluster holds more than one item."""
    if clusters is None:
        return False
    ids = cluster_ids(clusters)
    return bool(ids.size and np.bincount(ids).max() > 1)


def cluster_sums(contrib: np.ndarray, clusters: np.ndarray) -> np.ndarray:
    """``(G, k)`` sums of the rows of ``contrib`` (``(n,)`` or ``(n, k)``) within clusters."""
    ids = cluster_ids(clusters)
    c = np.asarray(contrib, float)
    c2 = c[:, None] if c.ndim == 1 else c
    if ids.size != c2.shape[0]:
        raise ValueError(f"one cluster per item: got {ids.size} clusters for {c2.shape[0]} items")
    g = int(ids.max()) + 1 if ids.size else 0
    return np.stack(
        [np.bincount(ids, weights=c2[:, j], minlength=g) for j in range(c2.shape[1])], 1
    )


def cluster_cov(u: np.ndarray, clusters: np.ndarray, v: np.ndarray | None = None) -> np.ndarray:
    """``G/(G-1) sum_g U_g V_g^T`` of the per-item contributions ``u`` (and ``v``; default
    ``u``), summed within clusters; ``(k, k)``. Centre the contributions first if needed."""
    su = cluster_sums(u, clusters)
    sv = su if v is None else cluster_sums(v, clusters)
    g = su.shape[0]
    if g < 2:
        return np.zeros((su.shape[1], sv.shape[1]))
    return g / (g - 1) * su.T @ sv
