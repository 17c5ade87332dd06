"""Prediction-powered mean estimation (PPI++ with power tuning), plain or weighted.

A few items carry a *human* label ``y`` and a *judge* label ``yhat``; many more carry only a
judge label. The prediction-powered estimate of the humans' mean over all items is

    theta = lam * mean(yhat over judge-only items) + mean(y - lam * yhat over labelled items)

(Angelopoulos et al. 2023; PPI++, Angelopoulos, Duchi & Zrnic 2024). The judge's errors are
measured on the labelled items and removed, so the estimate is unbiased whatever the judge's
bias; its variance is ``lam² var(yhat_u) / N + var(y - lam yhat) / n``. ``lam`` (power
tuning) is the value in [0, 1] that minimises that estimated variance; ``lam = 0`` is the
classical mean of the human labels alone, so the tuned interval is never wider than the
human-only one on the same labels.

**Known selection probabilities** (active selection, Zrnic & Candès 2024): when item ``i`` was
sent to humans with a known probability ``pi_i`` (the judge-only items too have one), each
labelled item counts with weight ``1/pi_i``:

    theta = lam * mean(yhat over all items) + c,   c = sum_L (y - lam yhat) / pi / sum_L 1 / pi

(``c``, the weighted mean of the judge's error, is a ratio, Hájek, estimate: unlike the plain
``1/pi`` sum it does not grow noisier with the size of the mean). Its variance is
``var(psi) / (n + N)`` over all items with
``psi_i = lam * yhat_i + (labelled_i / pi_i) * (y_i - lam * yhat_i - c)``; ``lam`` minimises
it, and ``lam = 0`` is the weighted mean of the human labels alone.

**Items that share a prompt** (several model pairs or criteria voted on one prompt) are not
independent: a prompt that favours one model does so in all its pairs. Given ``clusters``
(one id per item, e.g. the prompt), the variance is cluster-robust
(:mod:`eval.kit.stats.clusters`): the estimate is written as a sum of per-item
contributions ``lam * a_i + b_i``, these are summed within each cluster, and the variance is
``G/(G-1) sum_g (lam A_g + B_g)²`` over the ``G`` clusters; ``lam`` minimises that. Clusters
may hold labelled and judge-only items together.

Intervals are normal (z) intervals, as in the authors' ``ppi-python``.

Example:
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.normal(size=2000)
    >>> judge = truth + 0.3 + 0.2 * rng.normal(size=2000)   # biased by +0.3, but informative
    >>> est = ppi_mean(truth[:100], judge[:100], judge[100:])
    >>> round(est.lam, 2), bool(est.ci[0] < truth.mean() < est.ci[1])
    (0.9, True)
    >>> classical = ppi_mean(truth[:100], judge[:100], judge[100:], lam=0.0)
    >>> bool(est.se < classical.se)
    True
    >>> prompts = np.arange(2000) // 4                      # four items on each prompt
    >>> clustered = ppi_mean(truth[:100], judge[:100], judge[100:],
    ...                      clusters=prompts[:100], clusters_unlabelled=prompts[100:])
    >>> round(clustered.lam, 2), clustered.clustered
    (0.89, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from eval.kit.stats.clusters import cluster_cov

__all__ = ["MeanEstimate", "ppi_mean", "z_value"]


def z_value(alpha: float) -> float:
    """The two-sided normal quantile for level ``1 - alpha`` (1.96 for 0.05)."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    return NormalDist().inv_cdf(1 - alpha / 2)


@dataclass(frozen=True)
class MeanEstimate:
    """A mean with its standard error, interval and the ``lam`` used."""

    estimate: float
    se: float
    ci: tuple[float, float]
    lam: float
    n_labelled: int
    n_unlabelled: int
    clustered: bool = False


def _var(x: np.ndarray) -> float:
    return float(np.var(x)) if x.size else 0.0


def _cov(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean((x - x.mean()) * (y - y.mean()))) if x.size else 0.0


def _check(y: np.ndarray, yhat: np.ndarray, yhat_u: np.ndarray) -> None:
    if y.ndim != 1 or yhat.shape != y.shape:
        raise ValueError(
            f"y and yhat must be 1-d of the same length, got {y.shape} and {yhat.shape}"
        )
    if yhat_u.ndim != 1:
        raise ValueError(f"yhat_unlabelled must be 1-d, got shape {yhat_u.shape}")
    if y.size < 2:
        raise ValueError(f"need at least 2 labelled items, got {y.size}")
    if not (np.all(np.isfinite(y)) and np.all(np.isfinite(yhat)) and np.all(np.isfinite(yhat_u))):
        raise ValueError("labels must be finite numbers (no nan or inf)")


def _tuned(num: float, den: float) -> float:
    """``num / den`` clipped to [0, 1] (0 when the judge carries no information)."""
    return float(np.clip(num / den, 0.0, 1.0)) if den > 0 else 0.0


def ppi_mean(
    y: np.ndarray,
    yhat: np.ndarray,
    yhat_unlabelled: np.ndarray,
    *,
    pi: np.ndarray | None = None,
    pi_unlabelled: np.ndarray | None = None,
    lam: float | None = None,
    alpha: float = 0.05,
    clusters: np.ndarray | None = None,
    clusters_unlabelled: np.ndarray | None = None,
) -> MeanEstimate:
    """The prediction-powered mean of ``y`` (see the module docstring).

    ``y``/``yhat``: human and judge labels of the labelled items; ``yhat_unlabelled``: judge
    labels of the judge-only items. ``pi``/``pi_unlabelled``: each item's known probability of
    having been sent to humans (both or neither; after several rounds of selection, one over
    the item's inverse weight, which may exceed 1: :mod:`eval.leaderboards.rounds`).
    ``lam=None`` tunes it; ``lam=0`` gives the
    human-only estimate, ``lam=1`` plain PPI. Without judge-only items (and without ``pi``)
    ``lam`` is 0. ``clusters``/``clusters_unlabelled``: each item's cluster (e.g. its prompt,
    both or neither) for the cluster-robust variance.
    """
    y = np.asarray(y, dtype=float)
    yhat = np.asarray(yhat, dtype=float)
    yhat_u = np.asarray(yhat_unlabelled, dtype=float)
    _check(y, yhat, yhat_u)
    n, big_n = y.size, yhat_u.size
    if (pi is None) != (pi_unlabelled is None):
        raise ValueError("give the selection probabilities of both labelled and other items")
    if lam is not None and not 0 <= lam <= 1:
        raise ValueError(f"lam must be in [0, 1], got {lam}")
    z = z_value(alpha)
    if (clusters is None) != (clusters_unlabelled is None):
        raise ValueError("give the clusters of both labelled and other items")
    if clusters is not None:
        groups = np.concatenate(
            [np.asarray(clusters).ravel(), np.asarray(clusters_unlabelled).ravel()]
        )
        if groups.size != n + big_n:
            raise ValueError(f"one cluster per item: got {groups.size} for {n + big_n} items")
    if pi is None:
        if not big_n:  # no judge-only item: nothing to borrow, the human mean it is
            lam = 0.0
        var_u = _var(yhat_u) / big_n if big_n else 0.0
        if clusters is not None:  # contributions lam * a + b (see the module docstring)
            u_part = (yhat_u - yhat_u.mean()) / big_n if big_n else yhat_u
            a_c = np.concatenate([-(yhat - yhat.mean()) / n, u_part])
            b_c = np.concatenate([(y - y.mean()) / n, np.zeros(big_n)])
            lam, se = _clustered(a_c, b_c, groups, lam)
        elif lam is None:  # minimise lam² (var_u + var(yhat)/n) - 2 lam cov/n + var(y)/n
            lam = _tuned(_cov(y, yhat) / n, var_u + _var(yhat) / n)
        est = lam * (yhat_u.mean() if big_n else 0.0) + float(np.mean(y - lam * yhat))
        if clusters is None:
            se = float(np.sqrt(lam**2 * var_u + _var(y - lam * yhat) / n))
    else:
        p = np.concatenate([np.asarray(pi, float), np.asarray(pi_unlabelled, float)])
        if p.shape != (n + big_n,) or not np.all((p > 0) & np.isfinite(p)):
            raise ValueError("selection probabilities must be positive, one per item")
        inv = np.concatenate([1.0 / p[:n], np.zeros(big_n)])  # labelled / pi
        yh_all = np.concatenate([yhat, yhat_u])
        y_all = np.concatenate([y, np.zeros(big_n)])
        c_y, c_yh = (float(np.sum(inv * v) / inv.sum()) for v in (y_all, yh_all))
        a = yh_all - inv * (yh_all - c_yh)  # psi = lam * a + b
        b = inv * (y_all - c_y)
        if clusters is not None:
            lam, se = _clustered((a - a.mean()) / a.size, (b - b.mean()) / a.size, groups, lam)
        elif lam is None:
            lam = _tuned(-_cov(a, b), _var(a))
        est = lam * float(yh_all.mean()) + c_y - lam * c_yh
        if clusters is None:
            se = float(np.sqrt(_var(lam * a + b) / a.size))
    est = float(est)
    return MeanEstimate(
        est, se, (est - z * se, est + z * se), float(lam), n, big_n, clusters is not None
    )


def _clustered(
    a: np.ndarray, b: np.ndarray, groups: np.ndarray, lam: float | None
) -> tuple[float, float]:
    """``lam`` (tuned when None) and the standard error from per-item contributions
    ``lam * a + b`` summed within clusters."""
    m = cluster_cov(np.stack([a, b], 1), groups)
    if lam is None:
        lam = _tuned(-m[0, 1], m[0, 0])
    return float(lam), float(np.sqrt(max(lam**2 * m[0, 0] + 2 * lam * m[0, 1] + m[1, 1], 0.0)))
