"""Simulated human and judge labels with known Bradley–Terry truth, for the hybrid tests.

Six models with true strengths ``THETA``. An item is a random pair; it is either *clear*
(the humans almost all agree: win probability 0.99 or 0.01) or *hard* (win probability the
BT one), mixed so that the humans' expected label of every pair is exactly
``sigmoid(theta_a - theta_b)``: the true BT scores are ``100 softmax(THETA)``. The judge
sees the same item (so its votes correlate with the humans' through the items), but
over-prefers model ``FAVOURED`` and the model shown first; it is a panel of ``PANEL``
calls in each order, its label the share of its votes won by ``a``.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

THETA = np.array([0.8, 0.4, 0.1, 0.0, -0.3, -0.6])
M = THETA.size
FAVOURED = 2
PANEL = 3


def true_scores() -> np.ndarray:
    """The humans' BT scores (sum 100)."""
    p = np.exp(THETA)
    return 100 * p / p.sum()


def true_winrates() -> np.ndarray:
    """Each model's expected win rate (%) over uniformly drawn pairs."""
    p = expit(THETA[:, None] - THETA[None, :])
    return 100 * (p.sum(1) - 0.5) / (M - 1)


def simulate(
    rng: np.random.Generator,
    n_items: int = 4000,
    *,
    favour: float = 0.1,
    position: float = 0.1,
    hard: float = 0.4,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(a, b, y, yhat)``: pair indices (a < b), the human and the judge label of each item."""
    a = rng.integers(0, M, n_items)
    b = (a + rng.integers(1, M, n_items)) % M
    a, b = np.minimum(a, b), np.maximum(a, b)
    p = expit(THETA[a] - THETA[b])
    clear_win = rng.random(n_items) < (p - 0.01) / 0.98
    q = np.where(rng.random(n_items) < hard, p, np.where(clear_win, 0.99, 0.01))
    y = (rng.random(n_items) < q).astype(float)
    qj = q + favour * ((a == FAVOURED).astype(float) - (b == FAVOURED))
    first_a = (rng.random((PANEL, n_items)) < np.clip(qj + position, 0, 1)).sum(0)
    first_b = (rng.random((PANEL, n_items)) < np.clip(qj - position, 0, 1)).sum(0)
    return a, b, y, (first_a + first_b) / (2 * PANEL)
