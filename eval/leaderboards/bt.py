"""Bradley–Terry strengths by Newman's iterative (minorise–maximise) update.

With ``W[i, j]`` the wins of ``i`` over ``j`` (ties split half and half) one step sets

    p_i <- sum_j W[i, j] * p_j / (p_i + p_j)  /  sum_j W[j, i] / (p_i + p_j)

(wins weighted in the numerator, losses in the denominator, as in Newman, JMLR 2023; the crowd
paper's printed version swaps the two). Models are updated in place, one after the other, each
update using the values just computed (updating all at once can oscillate forever, e.g. with
two models); after a sweep the scores are rescaled to geometric mean 1, and the final scores
to sum 100. Iteration stops when no log-score moves by more than ``tol`` in a sweep.

The maximum-likelihood scores exist only when the "beat" graph is strongly connected; otherwise
(a model that never lost, groups that never met) the plain update runs off to 0 or infinity.
``prior > 0`` then adds, for every model, ``prior`` win(s) and ``prior`` loss(es) against a
virtual opponent of fixed strength 1 (which then sets the scale: no rescaling), keeping every
score finite and pulling it gently towards the middle. :func:`fit_bt` vectorises over a
leading batch axis so that a whole block of bootstrap resamples is fitted at once.

Example:
    >>> w = np.array([[0, 2.0, 3.0], [1.0, 0, 2.0], [1.0, 1.0, 0]])
    >>> [round(float(s), 2) for s in fit_bt(w)]
    [53.88, 29.72, 16.4]
"""

from __future__ import annotations

import numpy as np

TOL = 1e-10
MAX_ITER = 20_000


def fit_bt(
    w: np.ndarray,
    prior: float | np.ndarray = 0.0,
    *,
    tol: float = TOL,
    max_iter: int = MAX_ITER,
) -> np.ndarray:
    """Scores summing to 100 from win matrices ``w`` of shape (M, M) or (B, M, M).

    ``prior`` is a scalar or one value per matrix (pseudo-games against a virtual opponent
    of strength 1, see the module docstring).
    """
    w = np.asarray(w, dtype=float)
    single = w.ndim == 2
    if single:
        w = w[None]
    n_b, m, _ = w.shape
    alpha = np.broadcast_to(np.asarray(prior, dtype=float), (n_b,))[:, None]
    w = w * (1.0 - np.eye(m))
    p = np.ones((n_b, m))
    active = np.arange(n_b)
    for _ in range(max_iter):
        pa, wa, aa = p[active], w[active], alpha[active]
        old = pa.copy()
        for i in range(m):  # in place: each update already sees the new values before it
            inv = 1.0 / (pa[:, i : i + 1] + pa)  # 1 / (p_i + p_j), shape (b, M)
            virt = aa[:, 0] / (pa[:, i] + 1.0)
            num = np.einsum("bj,bj,bj->b", wa[:, i, :], inv, pa) + virt
            den = np.einsum("bj,bj->b", wa[:, :, i], inv) + virt
            ok = (den > 0) & (num > 0)  # a model without a win (or loss) keeps its value
            pa[:, i] = np.where(ok, num / np.where(ok, den, 1.0), pa[:, i])
        # without a prior the scale is free: pin the geometric mean to 1; with one, the
        # virtual opponent's fixed strength sets the scale (rescaling would fight it)
        gm = np.exp(np.mean(np.log(pa), axis=1, keepdims=True))
        pa = np.where(aa > 0, pa, pa / gm)
        change = np.max(np.abs(np.log(pa) - np.log(old)), axis=1)
        p[active] = pa
        active = active[change > tol]
        if active.size == 0:
            break
    scores = 100.0 * p / p.sum(axis=1, keepdims=True)
    return scores[0] if single else scores
