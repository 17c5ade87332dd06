"""Elo checked arithmetically: a three-vote replay worked out step by step, and the mean over
orders equal to the mean of hand replays in the same orders."""

from __future__ import annotations

import numpy as np
import pytest

from eval.leaderboards.elo import elo_mean, replay


def hand_elo(votes: list[tuple[int, int, float]], n_models: int) -> list[float]:
    """Plain-Python Elo: K = 16, start 1000, scale 400."""
    r = [1000.0] * n_models
    for a, b, s in votes:
        expect = 1 / (1 + 10 ** ((r[b] - r[a]) / 400))
        r[a], r[b] = r[a] + 16 * (s - expect), r[b] - 16 * (s - expect)
    return r


def test_three_votes_worked_example() -> None:
    # 1: equal ratings, E = 0.5, a gains 16 * 0.5 = 8 -> 1008 / 992
    # 2: E = 1 / (1 + 10^(-16/400)) = 0.523011..., a gains 7.63185 -> 1015.63185 / 984.36815
    # 3: b wins (s = 0) against the favourite: a loses 8.71794 -> 1006.91391 / 993.08609
    a, b, s = np.array([0, 0, 0]), np.array([1, 1, 1]), np.array([1.0, 1.0, 0.0])
    steps = [np.array([[0]]), np.array([[0, 1]]), np.array([[0, 1, 2]])]
    want = [(1008.0, 992.0), (1015.631847, 984.368153), (1006.913910, 993.086090)]
    for order, expected in zip(steps, want, strict=True):
        assert replay(a, b, s, order, 2)[0] == pytest.approx(expected, abs=1e-6)


def test_a_tie_between_equals_changes_nothing_and_padding_is_skipped() -> None:
    a, b, s = np.array([0]), np.array([1]), np.array([0.5])
    assert replay(a, b, s, np.array([[0, -1, -1]]), 2)[0] == pytest.approx([1000.0, 1000.0])


def test_mean_over_orders_is_the_mean_of_hand_replays() -> None:
    rng = np.random.default_rng(5)
    a = rng.integers(0, 4, 30)
    b = (a + rng.integers(1, 4, 30)) % 4
    s = rng.choice([0.0, 0.5, 1.0], 30)
    votes = list(zip(a.tolist(), b.tolist(), s.tolist(), strict=True))
    order_rng = np.random.default_rng(9)  # elo_mean draws its orders the same way
    orders = [order_rng.permutation(30) for _ in range(6)]
    by_hand = np.mean([hand_elo([votes[i] for i in o], 4) for o in orders], axis=0)
    np.testing.assert_allclose(elo_mean(a, b, s, n_models=4, n_orders=6, seed=9), by_hand)
    assert elo_mean(a, b, s, 4, 6, 9).sum() == pytest.approx(4000.0)  # Elo is zero-sum
