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
