"""Bradley–Terry strengths by Newman's iterative (minorise–maximise) update.

With ``W[i, j]`` the wins of ``i`` over ``j`` (ties split half and half) one step sets

    p_i <- sum_j W[i, j] * p_j / (p_i + p_j)  /  sum_j W[j, i] / (p_i + p_j)

(wins weighted in the numerator, losses in the denominator: Newman, JMLR 2023, eq. 13), then
rescales so that the geometric mean is 1; the final scores are rescaled to sum to 100.

The maximum-likelihood scores exist only when the "beat" graph is strongly connected; otherwise
(a model that never lost, groups that never met) the plain update runs off to 0 or infinity.
``prior > 0`` then adds, for every model, ``prior`` win(s) and ``prior`` loss(es) against a
virtual opponent of strength 1 (the geometric mean), which keeps every score finite and pulls
it gently towards the middle. :func:`fit_bt` vectorises over a leading batch axis so that a
whole block of bootstrap resamples is fitted at once.

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
        inv = 1.0 / (pa[:, :, None] + pa[:, None, :])  # 1 / (p_i + p_j)
        virt = aa / (pa + 1.0)
        num = np.einsum("bij,bij,bj->bi", wa, inv, pa) + virt
        den = np.einsum("bji,bij->bi", wa, inv) + virt
        new = np.where(den > 0, num / np.where(den > 0, den, 1.0), pa)
        new = np.where(new > 0, new, pa)  # a model with no win keeps its value this round
        new = new / np.exp(np.mean(np.log(new), axis=1, keepdims=True))
        change = np.max(np.abs(np.log(new) - np.log(pa)), axis=1)
        p[active] = new
        active = active[change > tol]
        if active.size == 0:
            break
    scores = 100.0 * p / p.sum(axis=1, keepdims=True)
    return scores[0] if single else scores
