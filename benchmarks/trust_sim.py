"""A simulated judge with known truth, for the trust statistics (tests and ``benchmarks.trust``).

Each item has a difficulty ``u`` in [0, 1]. A judge sees its own difficulty of the item — a
share ``SHARED`` of ``u`` plus its own part (judges have blind spots of their own) — and
errs with probability ``MISS * sigmoid((difficulty - skill) / WIDTH)``: almost never on
easy items, like a coin on the hardest. Its confidence is its own estimate of being right
from a noisy view of that difficulty, so confidence tracks difficulty without being exact.
``skill`` is solved so that the judge's plain agreement with people is the one asked.

Ratings: people rate in whole points 1–5; the judge's score (to 0.01, as an expected score
from sampled answers would be) lies around the human rating, further off on hard items.

Example:
    >>> sim = simulate(200, {"j": 0.8}, seed=1)
    >>> sim.agree.shape, round(float(sim.agree.mean()), 1)
    ((1, 200), 0.8)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

SHARED = 0.5
MISS = 0.5
WIDTH = 0.06
VIEW_NOISE = 0.05


@dataclass
class Simulation:
    """Per judge (rows) and item (columns): confidence and agreement with people."""

    names: list[str]
    confidence: np.ndarray
    agree: np.ndarray
    difficulty: np.ndarray

    def split(self, n_cal: int) -> tuple[Simulation, Simulation]:
        """The first ``n_cal`` items (calibration) and the rest (held out)."""
        a = Simulation(self.names, self.confidence[:, :n_cal], self.agree[:, :n_cal],
                       self.difficulty[:n_cal])  # fmt: skip
        b = Simulation(self.names, self.confidence[:, n_cal:], self.agree[:, n_cal:],
                       self.difficulty[n_cal:])  # fmt: skip
        return a, b


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _error(difficulty: np.ndarray, skill: float) -> np.ndarray:
    return MISS * _sigmoid((difficulty - skill) / WIDTH)


@lru_cache(maxsize=32)
def skill_for(agreement: float) -> float:
    """The skill at which a judge's plain agreement is ``agreement`` (solved on a fixed
    large sample of difficulties)."""
    rng = np.random.default_rng(12345)
    d = SHARED * rng.random(200_000) + (1 - SHARED) * rng.random(200_000)
    lo, hi = -1.0, 2.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if 1 - _error(d, mid).mean() < agreement:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def simulate(n: int, judges: dict[str, float], seed: int) -> Simulation:
    """``n`` items judged by each judge (name → plain agreement), cheap to strong."""
    rng = np.random.default_rng(seed)
    u = rng.random(n)
    conf, agree = [], []
    for agreement in judges.values():
        own = SHARED * u + (1 - SHARED) * rng.random(n)
        skill = skill_for(agreement)
        agree.append(rng.random(n) >= _error(own, skill))
        view = own + rng.normal(0.0, VIEW_NOISE, n)
        conf.append(np.round(1.0 - _error(view, skill), 3))
    return Simulation(list(judges), np.array(conf), np.array(agree), u)


def simulate_ratings(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(judge scores, human ratings, judge confidence) of ``n`` rated items."""
    rng = np.random.default_rng(seed)
    u = rng.random(n)
    human = rng.integers(1, 6, n).astype(float)
    spread = 0.3 + 1.0 * u
    judge = np.round(np.clip(human + rng.normal(0.0, spread), 1.0, 5.0), 2)
    confidence = np.round(np.clip(1.0 - u + rng.normal(0.0, VIEW_NOISE, n), 0.0, 1.0), 3)
    return judge, human, confidence
