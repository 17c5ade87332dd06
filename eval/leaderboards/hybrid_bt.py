"""Prediction-powered Bradley–Terry: the humans' BT scores from few human and many judge labels.

Each item is one prompt, one unordered pair of models ``(a, b)`` and one criterion; its label
is the share of votes ``a`` won (a tie counts half). Bradley–Terry is the logistic regression
``P(a beats b) = sigmoid(theta_a - theta_b)`` (``theta`` of the first model fixed at 0); the
humans' scores are the minimiser of the expected logistic loss of the human labels over
all items. PPI++ (Angelopoulos, Duchi & Zrnic 2024) estimates it by minimising

    lam * mean_U loss(theta; yhat) + mean_L [loss(theta; y) - lam * loss(theta; yhat)]

(``L``: items labelled by humans and the judge, ``U``: judge-only items), whose covariance is
the sandwich ``H^-1 (lam² Cov_U(grad yhat)/N + Cov_L(grad y - lam grad yhat)/n) H^-1``. With
known selection probabilities ``pi`` (active selection) the judge term runs over all items
and the labelled terms are a ``1/pi``-weighted ratio mean (Zrnic & Candès 2024; see
:mod:`eval.kit.stats.ppi`). ``lam`` is tuned at the ``lam = 1``
fit to minimise the summed variance of the scores, clipped to [0, 1]; if the tuned board's
summed variance still exceeds the human-only board's (``lam = 0``), the human-only board is
used, so the hybrid is never wider on average.

Given ``clusters`` (one id per item: the prompt), the middle of the sandwich is
cluster-robust (:mod:`eval.kit.stats.clusters`): each item's score contribution is summed
within its cluster before the outer products, so that model pairs voted on one prompt, which
move together, are not counted as independent evidence.

Scores are ``100 * softmax(theta)`` (they sum to 100, like ``judge leaderboard --method bt``);
their intervals come from the delta method.

Example:
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> a = rng.integers(0, 2, 4000); b = 2 - a          # pairs (0, 2) and (1, 2)
    >>> p = 1 / (1 + np.exp(-(np.array([1.0, 0.5, 0.0])[a] - 0.0)))
    >>> y = (rng.random(4000) < p).astype(float)
    >>> yhat = np.where(rng.random(4000) < 0.8, y, 1 - y)
    >>> y[400:] = np.nan                                   # humans labelled 400 items
    >>> fit = fit_hybrid_bt(3, a, b, y, yhat)
    >>> round(float(fit.scores.sum()), 6), bool(0 < fit.lam <= 1)
    (100.0, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from eval.kit.stats.clusters import cluster_cov

__all__ = ["BTFit", "DegenerateFit", "fit_bias_bt", "fit_hybrid_bt", "fit_judge_bt"]

MAX_NEWTON = 100
MAX_THETA = 40.0


class DegenerateFit(ValueError):
    """The Bradley–Terry scores have no finite value for these labels."""


@dataclass(frozen=True)
class BTFit:
    """Scores (sum 100), their standard errors and the ``lam`` used; ``theta`` and
    ``theta_se``: the strengths (model 0's fixed at 0) and the others' standard errors;
    ``cov``: the scores' covariance (for intervals of differences)."""

    scores: np.ndarray
    se: np.ndarray
    lam: float
    theta: np.ndarray | None = None
    theta_se: np.ndarray | None = None
    cov: np.ndarray | None = None


def _design(m: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(items, M-1) rows ``e_a - e_b`` without model 0's column."""
    x = np.zeros((a.size, m))
    rows = np.arange(a.size)
    x[rows, a] = 1.0
    x[rows, b] = -1.0
    return x[:, 1:]


def _newton(m: int, a: np.ndarray, b: np.ndarray, w: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Minimise ``sum_i w_i log(1 + e^{d_i}) - v_i d_i`` with ``d_i = theta_a - theta_b``.

    The loss depends on items only through per-pair sums of ``w`` and ``v``, so the fit
    runs over pairs (at most M(M-1)/2 of them) whatever the number of items.
    """
    key = a * m + b
    uniq, inv = np.unique(key, return_inverse=True)
    wp = np.bincount(inv, weights=w, minlength=uniq.size)
    vp = np.bincount(inv, weights=v, minlength=uniq.size)
    xp = _design(m, uniq // m, uniq % m)
    theta = np.zeros(m - 1)
    for _ in range(MAX_NEWTON):
        d = xp @ theta
        s = expit(d)
        grad = xp.T @ (wp * s - vp)
        hess = (xp * (wp * s * (1 - s))[:, None]).T @ xp
        try:
            step = np.linalg.solve(hess, grad)
        except np.linalg.LinAlgError as exc:
            raise DegenerateFit("the pairs compared do not connect all the models") from exc
        theta = theta - step
        if not np.all(np.isfinite(theta)) or np.max(np.abs(theta), initial=0) > MAX_THETA:
            raise DegenerateFit("a model never lost (or never won) on these labels")
        if np.max(np.abs(step), initial=0) < 1e-10:
            return np.concatenate([[0.0], theta])
    raise DegenerateFit("the Bradley–Terry fit did not converge")


def _scores_and_jacobian(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``100 softmax(theta)`` and its Jacobian with respect to ``theta[1:]``."""
    p = np.exp(theta - theta.max())
    p /= p.sum()
    jac = 100.0 * (np.diag(p) - np.outer(p, p))
    return 100.0 * p, jac[:, 1:]


def _hessian(x: np.ndarray, theta: np.ndarray, weight: np.ndarray | None = None) -> np.ndarray:
    s = expit(x @ theta[1:])
    c = s * (1 - s) if weight is None else weight * s * (1 - s)
    return (x * c[:, None]).T @ x / x.shape[0]


def _cov(u: np.ndarray, v: np.ndarray | None = None) -> np.ndarray:
    """Covariance (ddof 1) of the rows of ``u`` (with those of ``v``: cross-covariance)."""
    v = u if v is None else v
    n = u.shape[0]
    if n < 2:
        return np.zeros((u.shape[1], v.shape[1]))
    return (u - u.mean(0)).T @ (v - v.mean(0)) / (n - 1)


def _mean_cov(u: np.ndarray, groups: np.ndarray | None) -> np.ndarray:
    """Covariance of the mean of the rows of ``u``: independent, or summed within clusters."""
    n = u.shape[0]
    return _cov(u) / n if groups is None else cluster_cov((u - u.mean(0)) / n, groups)


@dataclass
class _Data:
    m: int
    a: np.ndarray
    b: np.ndarray
    y: np.ndarray  # human label (nan: none)
    yhat: np.ndarray
    pi: np.ndarray | None
    clusters: np.ndarray | None = None

    @property
    def lab(self) -> np.ndarray:
        return ~np.isnan(self.y)


def _weights(d: _Data, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-item ``w``, ``v`` of the PPI objective (see the module docstring)."""
    lab = d.lab
    y0 = np.where(lab, d.y, 0.0)
    if d.pi is None:
        n, big_n = int(lab.sum()), int((~lab).sum())
        w = np.where(lab, (1 - lam) / n, lam / max(big_n, 1))
        v = np.where(lab, (y0 - lam * d.yhat) / n, lam * d.yhat / max(big_n, 1))
        return w, v
    r = np.where(lab, 1.0 / d.pi, 0.0)
    total, s = d.a.size, r.sum()  # labelled terms: a ratio (Hájek) mean, weights r / s
    return lam / total + r * (1 - lam) / s, lam * d.yhat / total + r * (y0 - lam * d.yhat) / s


def _grad_parts(d: _Data, x: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-item gradients with the human and the judge labels (zero where no human label)."""
    s = expit(x @ theta[1:])
    g = np.where(d.lab, s - np.where(d.lab, d.y, 0.0), 0.0)[:, None] * x
    ghat = (s - d.yhat)[:, None] * x
    return g, ghat


def _quadratic(d: _Data, x: np.ndarray, theta: np.ndarray):
    """Matrices ``A, B, C`` with ``Cov(theta_hat) = H^-1 (lam² A + lam B + C) H^-1``."""
    g, ghat = _grad_parts(d, x, theta)
    lab = d.lab
    if d.clusters is not None:
        return _clustered_quadratic(d, d.clusters, g, ghat)
    if d.pi is None:
        n, big_n = int(lab.sum()), int((~lab).sum())
        gl, hl, hu = g[lab], ghat[lab], ghat[~lab]
        a_mat = _cov(hl) / n + (_cov(hu) / big_n if big_n > 1 else 0.0)
        cross = _cov(gl, hl)
        return a_mat, -(cross + cross.T) / n, _cov(gl) / n
    r = np.where(lab, 1.0 / d.pi, 0.0)[:, None]
    c_g, c_ghat = (np.sum(r * v, axis=0) / r.sum() for v in (g, ghat))
    pa, pb = ghat - r * (ghat - c_ghat), r * (g - c_g)  # psi = lam * pa + pb
    total = d.a.size
    cross = _cov(pa, pb)
    return _cov(pa) / total, (cross + cross.T) / total, _cov(pb) / total


def _clustered_quadratic(d: _Data, clusters: np.ndarray, g: np.ndarray, ghat: np.ndarray):
    """``A, B, C`` from per-item contributions ``lam * pa + pb`` summed within clusters."""
    lab = d.lab
    if d.pi is None:
        n, big_n = int(lab.sum()), int((~lab).sum())
        pa = np.zeros_like(ghat)
        pb = np.zeros_like(g)
        pa[lab] = -(ghat[lab] - ghat[lab].mean(0)) / n
        if big_n:
            pa[~lab] = (ghat[~lab] - ghat[~lab].mean(0)) / big_n
        pb[lab] = (g[lab] - g[lab].mean(0)) / n
    else:
        r = np.where(lab, 1.0 / d.pi, 0.0)[:, None]
        c_g, c_ghat = (np.sum(r * v, axis=0) / r.sum() for v in (g, ghat))
        pa, pb = ghat - r * (ghat - c_ghat), r * (g - c_g)
        total = d.a.size
        pa, pb = (pa - pa.mean(0)) / total, (pb - pb.mean(0)) / total
    cross = cluster_cov(pa, clusters, pb)
    return cluster_cov(pa, clusters), cross + cross.T, cluster_cov(pb, clusters)


def _fit_at(d: _Data, x: np.ndarray, lam: float) -> BTFit:
    """The fit of the PPI objective at ``lam``, with its sandwich covariance."""
    theta = _newton(d.m, d.a, d.b, *_weights(d, lam))
    scores, jac = _scores_and_jacobian(theta)
    h_inv = np.linalg.pinv(_hessian(x, theta))
    a_mat, b_mat, c_mat = _quadratic(d, x, theta)
    cov_theta = h_inv @ (lam**2 * a_mat + lam * b_mat + c_mat) @ h_inv
    cov = jac @ cov_theta @ jac.T
    return BTFit(scores, _sd(cov), float(lam), theta, _sd(cov_theta), cov)


def _sd(cov: np.ndarray) -> np.ndarray:
    return np.sqrt(np.clip(np.diag(cov), 0, None))


def fit_hybrid_bt(
    m: int,
    a: np.ndarray,
    b: np.ndarray,
    y: np.ndarray,
    yhat: np.ndarray,
    *,
    pi: np.ndarray | None = None,
    lam: float | None = None,
    clusters: np.ndarray | None = None,
) -> BTFit:
    """PPI++ Bradley–Terry over ``m`` models from item arrays.

    ``a``/``b``: model indices of each item; ``y``: the humans' share of wins of ``a`` (nan
    where no human labelled the item); ``yhat``: the judge's; ``pi``: each item's known
    probability of being sent to humans (None: a uniform random sample). ``lam=None`` tunes
    it; ``lam=0`` is the human-only board (also used when every item has a human label).
    ``clusters``: each item's cluster (its prompt) for the cluster-robust covariance.
    """
    d = _Data(
        m, np.asarray(a), np.asarray(b), np.asarray(y, float), np.asarray(yhat, float), pi,
        None if clusters is None else np.asarray(clusters),
    )  # fmt: skip
    x = _design(m, d.a, d.b)
    if pi is None and d.lab.all():
        lam = 0.0  # no judge-only item: nothing to borrow, the human-only board it is
    if lam is not None:
        return _fit_at(d, x, lam)
    for start in (1.0, 0.5, 0.0):  # the lam at which to tune; the judge alone may not fit
        try:
            theta1 = _newton(m, d.a, d.b, *_weights(d, start))
            break
        except DegenerateFit:
            if start == 0.0:
                raise
    _, jac = _scores_and_jacobian(theta1)
    k = jac @ np.linalg.pinv(_hessian(x, theta1))
    a_mat, b_mat, _ = _quadratic(d, x, theta1)
    den = 2 * np.trace(k @ a_mat @ k.T)
    tuned = float(np.clip(-np.trace(k @ b_mat @ k.T) / den, 0, 1)) if den > 0 else 0.0
    fit = _fit_at(d, x, tuned)
    if tuned > 0:
        try:
            human = _fit_at(d, x, 0.0)
        except DegenerateFit:
            return fit  # the humans alone have no finite board: the hybrid stands
        if np.sum(human.se**2) < np.sum(fit.se**2):
            return human
    return fit


def fit_judge_bt(
    m: int, a: np.ndarray, b: np.ndarray, yhat: np.ndarray, *, clusters: np.ndarray | None = None
) -> BTFit:
    """The judge-only board: BT on the judge's labels of all items, as if they were human
    (cluster-robust covariance when ``clusters`` is given)."""
    yhat = np.asarray(yhat, float)
    n = yhat.size
    theta = _newton(m, a, b, np.full(n, 1.0 / n), yhat / n)
    scores, jac = _scores_and_jacobian(theta)
    x = _design(m, a, b)
    k = jac @ np.linalg.pinv(_hessian(x, theta))
    ghat = (expit(x @ theta[1:]) - yhat)[:, None] * x
    cov = k @ _mean_cov(ghat, None if clusters is None else np.asarray(clusters)) @ k.T
    return BTFit(scores, _sd(cov), 1.0, theta, None, cov)


def fit_bias_bt(
    m: int,
    a: np.ndarray,
    b: np.ndarray,
    y: np.ndarray,
    yhat: np.ndarray,
    *,
    pi: np.ndarray | None = None,
    clusters: np.ndarray | None = None,
) -> BTFit:
    """The judge's bias: its BT scores minus the humans', both fitted on the labelled items
    (weighted by ``1/pi`` under known selection probabilities), with the standard error of
    the difference from the paired influence functions (summed within ``clusters`` when
    given)."""
    y = np.asarray(y, float)
    lab = ~np.isnan(y)
    groups = None if clusters is None else np.asarray(clusters)
    if pi is None:
        a, b, yh, yy = np.asarray(a)[lab], np.asarray(b)[lab], np.asarray(yhat)[lab], y[lab]
        groups = None if groups is None else groups[lab]
        c = np.ones(yy.size)
    else:
        a, b, yh, yy = np.asarray(a), np.asarray(b), np.asarray(yhat, float), np.where(lab, y, 0)
        c = np.where(lab, 1.0 / np.asarray(pi, float), 0.0)
    n = yy.size
    x = _design(m, a, b)
    parts = []
    for label in (yh, yy):
        theta = _newton(m, a, b, c / n, c * label / n)
        scores, jac = _scores_and_jacobian(theta)
        k = jac @ np.linalg.pinv(_hessian(x, theta, c))
        infl = (c * (expit(x @ theta[1:]) - label))[:, None] * (x @ k.T)
        parts.append((scores, infl))
    (s_j, i_j), (s_h, i_h) = parts
    diff = i_j - i_h
    cov = _mean_cov(diff, groups)
    return BTFit(s_j - s_h, _sd(cov), 0.0, None, None, cov)
