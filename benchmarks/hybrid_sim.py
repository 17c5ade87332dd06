"""Simulated human and judge labels with known Bradley–Terry truth (harness for the hybrid
leaderboard's tests, benchmark and docs example).

Models have true strengths ``theta``. An item is a random pair; it is either *clear* (the
humans almost all agree: win probability 0.99 or 0.01) or *hard* (win probability the BT one),
mixed so that the humans' expected label of every pair is exactly ``sigmoid(theta_a -
theta_b)``: the true BT scores are ``100 softmax(theta)``. The judge sees the same item (so its
votes correlate with the humans' through the items), but over-prefers model ``favoured`` and
the model shown first; it is a panel of ``panel`` calls in each order, its label the share of
its votes won by ``a``. With ``skill < 1`` each judge call is, with probability ``1 - skill``,
a coin flip instead (a weaker judge: lower judge–human agreement).

Example:
    >>> import numpy as np
    >>> a, b, y, yhat = simulate(np.random.default_rng(0), 1000)
    >>> bool((a < b).all()), sorted(set(y.tolist())), bool(0 <= yhat.min() <= yhat.max() <= 1)
    (True, [0.0, 1.0], True)
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

THETA = np.array([0.8, 0.4, 0.1, 0.0, -0.3, -0.6])
M = THETA.size
FAVOURED = 2
PANEL = 3


def true_scores(theta: np.ndarray = THETA) -> np.ndarray:
    """The humans' BT scores (sum 100)."""
    p = np.exp(theta - theta.max())
    return 100 * p / p.sum()


def true_winrates(theta: np.ndarray = THETA) -> np.ndarray:
    """Each model's expected win rate (%) over uniformly drawn pairs."""
    p = expit(theta[:, None] - theta[None, :])
    return 100 * (p.sum(1) - 0.5) / (theta.size - 1)


def simulate(
    rng: np.random.Generator,
    n_items: int = 4000,
    *,
    theta: np.ndarray = THETA,
    favour: float = 0.1,
    position: float = 0.1,
    hard: float = 0.4,
    skill: float = 1.0,
    panel: int = PANEL,
    favoured: int = FAVOURED,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(a, b, y, yhat)``: pair indices (a < b), the human and the judge label of each item."""
    m = theta.size
    a = rng.integers(0, m, n_items)
    b = (a + rng.integers(1, m, n_items)) % m
    a, b = np.minimum(a, b), np.maximum(a, b)
    p = expit(theta[a] - theta[b])
    clear_win = rng.random(n_items) < (p - 0.01) / 0.98
    q = np.where(rng.random(n_items) < hard, p, np.where(clear_win, 0.99, 0.01))
    y = (rng.random(n_items) < q).astype(float)
    qj = q + favour * ((a == favoured).astype(float) - (b == favoured))
    votes = np.zeros(n_items)
    for shift in (position, -position):  # a shown first, then b shown first
        p_call = np.clip(qj + shift, 0, 1)
        informed = rng.random((panel, n_items)) < skill
        call = np.where(informed, rng.random((panel, n_items)) < p_call,
                        rng.random((panel, n_items)) < 0.5)  # fmt: skip
        votes += call.sum(0)
    return a, b, y, votes / (2 * panel)


def simulate_prompts(
    rng: np.random.Generator,
    n_prompts: int = 300,
    *,
    theta: np.ndarray = THETA,
    prompt_sd: float = 0.8,
    judge_sd: float = 0.0,
    favour: float = 0.3,
    panel: int = PANEL,
    favoured: int = FAVOURED,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(prompt, a, b, y, yhat)``: every pair of models on each of ``n_prompts`` prompts.

    Each prompt shifts every model's strength by its own ``N(0, prompt_sd²)`` (a prompt that
    suits one model's style), for the humans and the judge alike, so the votes of one prompt
    move together. The judge over-prefers model ``favoured`` and has its own taste per prompt
    (another ``N(0, judge_sd²)`` shift per model, that the humans do not share). The
    humans' expected label of each pair over prompts is :func:`true_pair_wins`.
    """
    m = theta.size
    a0, b0 = np.triu_indices(m, 1)
    k = a0.size
    prompt = np.repeat(np.arange(n_prompts), k)
    a, b = np.tile(a0, n_prompts), np.tile(b0, n_prompts)
    shift = rng.normal(0, prompt_sd, (n_prompts, m))
    d = theta[a] - theta[b] + shift[prompt, a] - shift[prompt, b]
    y = (rng.random(a.size) < expit(d)).astype(float)
    taste = rng.normal(0, judge_sd, (n_prompts, m))  # the judge's own, per prompt
    d = d + taste[prompt, a] - taste[prompt, b]
    qj = expit(d + favour * ((a == favoured).astype(float) - (b == favoured)))
    yhat = (rng.random((panel, a.size)) < qj).mean(0)
    return prompt, a, b, y, yhat


def true_pair_wins(theta: np.ndarray = THETA, prompt_sd: float = 0.8) -> np.ndarray:
    """The humans' expected label of each pair ``np.triu_indices(M, 1)`` over prompts:
    ``E sigmoid(theta_a - theta_b + N(0, 2 prompt_sd²))`` by Gauss–Hermite quadrature."""
    a, b = np.triu_indices(theta.size, 1)
    x, w = np.polynomial.hermite_e.hermegauss(80)
    s = np.sqrt(2) * prompt_sd
    return expit((theta[a] - theta[b])[:, None] + s * x[None, :]) @ w / w.sum()
