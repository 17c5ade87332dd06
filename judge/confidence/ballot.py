"""Ballots: the answers a confidence method collected for one item, and the confidence they
give the answer the judge returned.

A ballot holds weighted votes (a sample's or an annotator's answer weighs 1, a token's
probability its probability) or, when none could be had, the reason. The confidence of an
answer is the share of the votes' weight that agrees with it, each ballot counted once
(ballots of several calls, such as a comparison's two orders, are averaged).

A vote agrees with a yes/no verdict or a choice when it is the same value; with a 1–5 score
when it equals the score rounded to the nearest whole number (halves up): a panel's mean of
3.5 is agreed with by the votes of 4.

Example:
    >>> b = Ballot.of([4, 4, 3, 4, 5])
    >>> confidence_of([b], 4)
    Estimate(value=0.6, reason=None)
    >>> confidence_of([Ballot.of([True]), Ballot.of([False])], True).value
    0.5
    >>> confidence_of([Ballot.unavailable("every sample failed")], True)
    Estimate(value=None, reason='every sample failed')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

Answer = bool | int | float | str


@dataclass(frozen=True)
class Ballot:
    """Weighted votes for one item, or the reason there are none."""

    votes: tuple[tuple[Answer, float], ...] = ()
    reason: str | None = None

    @classmethod
    def of(cls, answers: Iterable[Answer | None], reason: str = "no answer to count") -> Ballot:
        """One vote per answer given (None: an answer that could not be had, left out)."""
        votes = tuple((a, 1.0) for a in answers if a is not None)
        return cls(votes) if votes else cls(reason=reason)

    @classmethod
    def unavailable(cls, reason: str) -> Ballot:
        """A ballot with no votes, and why."""
        return cls(reason=reason)

    def mapped(self, fn: Callable[[Answer], Answer]) -> Ballot:
        """The same votes with each answer mapped (a position to a contender)."""
        return Ballot(tuple((fn(a), w) for a, w in self.votes), self.reason)


@dataclass(frozen=True)
class Estimate:
    """An item's confidence (0–1), or None with the reason it could not be had."""

    value: float | None
    reason: str | None = None


def agrees(vote: Answer, answer: Answer) -> bool:
    """Whether ``vote`` is the same answer as ``answer`` (a score: rounded, halves up)."""
    if isinstance(answer, bool) or isinstance(vote, bool) or isinstance(answer, str):
        return vote == answer
    if isinstance(vote, int | float):
        return float(vote) == math.floor(float(answer) + 0.5)
    return False


def confidence_of(ballots: Iterable[Ballot], answer: Any) -> Estimate:
    """The share of the ballots' weight agreeing with ``answer``, ballots averaged; None
    (with the first ballot's reason) when no ballot has a vote or there is no answer."""
    ballots = list(ballots)
    if answer is None:
        return Estimate(None, "the item has no answer to be confident about")
    shares = []
    for b in ballots:
        total = sum(w for _, w in b.votes)
        if total > 0:
            shares.append(sum(w for v, w in b.votes if agrees(v, answer)) / total)
    if not shares:
        reason = next((b.reason for b in ballots if b.reason), "no votes were collected")
        return Estimate(None, reason)
    return Estimate(round(sum(shares) / len(shares), 4))


@dataclass
class Ballots:
    """An outcome's ballots by key (a dimension, a checkpoint id, a criterion)."""

    by_key: dict[str, Ballot] = field(default_factory=dict)

    def get(self, key: str) -> Ballot:
        return self.by_key.get(key) or Ballot.unavailable("no confidence was estimated")
