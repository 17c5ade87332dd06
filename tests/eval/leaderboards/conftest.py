"""Helpers for the leaderboard tests: votes drawn from known Bradley–Terry strengths."""

from __future__ import annotations

import numpy as np
import pytest

from eval.leaderboards.votes import Vote


def draw_votes(
    strengths: dict[str, float],
    n_votes: int,
    *,
    n_prompts: int = 50,
    seed: int = 0,
    tie_share: float = 0.0,
    criterion: str = "preference",
) -> list[Vote]:
    """Random pairs; side a wins with probability s_a / (s_a + s_b)."""
    rng = np.random.default_rng(seed)
    names = list(strengths)
    votes = []
    for k in range(n_votes):
        i, j = rng.choice(len(names), size=2, replace=False)
        a, b = names[i], names[j]
        if rng.random() < tie_share:
            winner = "tie"
        else:
            winner = "a" if rng.random() < strengths[a] / (strengths[a] + strengths[b]) else "b"
        votes.append(Vote(f"p{k % n_prompts}", a, b, winner, criterion))
    return votes


@pytest.fixture
def strengths() -> dict[str, float]:
    return {"alpha": 8.0, "bravo": 4.0, "charlie": 2.0, "delta": 1.0}
