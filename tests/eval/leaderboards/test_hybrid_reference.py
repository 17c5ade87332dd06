"""The PPI++ estimators checked against the authors' library (``ppi-python``) and against
direct computations written here, on the same data."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit

from benchmarks.hybrid_sim import M, simulate
from eval.kit.stats.ppi import ppi_mean
from eval.leaderboards.bt import fit_bt
from eval.leaderboards.hybrid_bt import fit_bias_bt, fit_hybrid_bt

Z = 1.959963984540054


def labelled_sample(seed: int, n_items: int = 3000, n_human: int = 400):
    rng = np.random.default_rng(seed)
    a, b, y, yhat = simulate(rng, n_items)
    lab = rng.permutation(n_items) < n_human
    return a, b, np.where(lab, y, np.nan), yhat, lab


def design(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    x = np.zeros((a.size, M))
    x[np.arange(a.size), a] = 1
    x[np.arange(a.size), b] = -1
    return x[:, 1:]


def test_mean_matches_ppi_python():
    import ppi_py  # imported here: it silences warnings for the whole process on import

    _, _, y, yhat, lab = labelled_sample(1)
    ours = ppi_mean(y[lab], yhat[lab], yhat[~lab])
    assert 0 < ours.lam < 1
    for lam in (ours.lam, 0.0, 1.0):
        est = ppi_mean(y[lab], yhat[lab], yhat[~lab], lam=lam)
        lo, hi = ppi_py.ppi_mean_ci(y[lab], yhat[lab], yhat[~lab], alpha=0.05, lam=lam)
        assert np.allclose(est.ci, [lo[0], hi[0]], atol=1e-9)
    # the library tunes lam with the variance of yhat pooled over both sets: nearly ours
    lo, hi = ppi_py.ppi_mean_ci(y[lab], yhat[lab], yhat[~lab], alpha=0.05)
    assert abs((hi[0] - lo[0]) - (ours.ci[1] - ours.ci[0])) < 0.01 * (ours.ci[1] - ours.ci[0])
    assert ours.se < ppi_mean(y[lab], yhat[lab], yhat[~lab], lam=0.0).se  # narrower than human


@pytest.mark.filterwarnings("ignore:'penalty' was deprecated:FutureWarning")  # the library's
def test_bradley_terry_matches_ppi_python_logistic_regression(monkeypatch):
    import ppi_py
    import ppi_py.ppi

    # the library's own code, run as plain Python: compiling it with numba takes ~11 s
    for name in ("_logistic_get_stats", "safe_expit"):
        monkeypatch.setattr(ppi_py.ppi, name, getattr(ppi_py.ppi, name).py_func)

    a, b, y, yhat, lab = labelled_sample(2)
    x = design(a, b)
    tuned = fit_hybrid_bt(M, a, b, y, yhat).lam
    assert 0 < tuned < 1
    for lam in (tuned, 1.0, 0.3):
        ours = fit_hybrid_bt(M, a, b, y, yhat, lam=lam)
        theirs = ppi_py.ppi_logistic_pointestimate(
            x[lab], y[lab], yhat[lab], x[~lab], yhat[~lab], lam=lam
        )
        lo, hi = ppi_py.ppi_logistic_ci(
            x[lab], y[lab], yhat[lab], x[~lab], yhat[~lab], alpha=0.05, lam=lam
        )
        assert np.allclose(ours.theta[1:], theirs, atol=1e-6)
        assert np.allclose(ours.theta_se, (hi - lo) / (2 * Z), atol=1e-8)


def test_human_only_board_is_todays_bradley_terry_of_the_human_votes():
    a, b, y, yhat, lab = labelled_sample(3)
    ours = fit_hybrid_bt(M, a, b, y, yhat, lam=0.0)
    wins = np.zeros((M, M))
    np.add.at(wins, (a[lab], b[lab]), y[lab])
    np.add.at(wins, (b[lab], a[lab]), 1 - y[lab])
    assert np.allclose(ours.scores, fit_bt(wins), atol=1e-6)


def direct_weighted(a, b, y, yhat, pi, lam):
    """Active PPI for BT written out item by item: generic optimiser, explicit sandwich."""
    x = design(a, b)
    lab = ~np.isnan(y)
    r = np.where(lab, 1 / pi, 0.0)
    y0 = np.where(lab, y, 0.0)
    n = a.size

    def loss(t, lab_y):
        d = x @ t
        return np.logaddexp(0, d) - lab_y * d

    def objective(t):
        return (
            lam * loss(t, yhat).mean() + np.sum(r * (loss(t, y0) - lam * loss(t, yhat))) / r.sum()
        )

    t = minimize(objective, np.zeros(M - 1), method="BFGS", options={"gtol": 1e-12}).x
    s = expit(x @ t)
    g = (s - y0)[:, None] * x * lab[:, None]
    gh = (s - yhat)[:, None] * x
    c = np.sum(r[:, None] * (g - lam * gh), axis=0) / r.sum()
    psi = np.array([lam * gh[i] + r[i] * (g[i] - lam * gh[i] - c) for i in range(n)])
    h = sum(s[i] * (1 - s[i]) * np.outer(x[i], x[i]) for i in range(n)) / n
    h_inv = np.linalg.inv(h)
    cov = h_inv @ np.cov(psi.T) @ h_inv / n
    return t, np.sqrt(np.diag(cov))


def test_weighted_bradley_terry_matches_a_direct_computation():
    rng = np.random.default_rng(4)
    a, b, y, yhat = simulate(rng, 1500)
    pi = np.clip(0.05 + 0.3 * (1 - np.abs(2 * yhat - 1)), 0, 1)
    y = np.where(rng.random(a.size) < pi, y, np.nan)
    for lam in (0.0, 0.6, 1.0):
        ours = fit_hybrid_bt(M, a, b, y, yhat, pi=pi, lam=lam)
        theta, se = direct_weighted(a, b, y, yhat, pi, lam)
        assert np.allclose(ours.theta[1:], theta, atol=1e-5)
        assert np.allclose(ours.theta_se, se, rtol=1e-4)


def test_weighted_mean_matches_a_direct_computation():
    rng = np.random.default_rng(5)
    _, _, y, yhat = simulate(rng, 2000)
    pi = np.clip(0.05 + 0.3 * (1 - np.abs(2 * yhat - 1)), 0, 1)
    lab = rng.random(y.size) < pi
    for lam in (0.0, 0.5):
        est = ppi_mean(y[lab], yhat[lab], yhat[~lab], pi=pi[lab], pi_unlabelled=pi[~lab], lam=lam)
        w = 1 / pi[lab]
        c = np.sum(w * (y[lab] - lam * yhat[lab])) / w.sum()
        direct = lam * np.concatenate([yhat[lab], yhat[~lab]]).mean() + c
        psi = lam * np.concatenate([yhat[lab], yhat[~lab]])
        psi[: lab.sum()] += w * (y[lab] - lam * yhat[lab] - c)
        assert abs(est.estimate - direct) < 1e-12
        assert abs(est.se - psi.std() / np.sqrt(psi.size)) < 1e-12


def test_bias_is_the_judges_board_minus_the_humans_on_the_labelled_items():
    a, b, y, yhat, lab = labelled_sample(6)
    bias = fit_bias_bt(M, a, b, y, yhat)
    judge = fit_hybrid_bt(M, a[lab], b[lab], yhat[lab], yhat[lab], lam=0.0)
    human = fit_hybrid_bt(M, a[lab], b[lab], y[lab], yhat[lab], lam=0.0)
    assert np.allclose(bias.scores, judge.scores - human.scores, atol=1e-8)
    assert bias.scores[2] > 0  # the favoured model gains
    # the paired difference is tighter than the two boards' errors added up
    assert np.all(bias.se < np.sqrt(judge.se**2 + human.se**2))
