"""``swap``: a comparison's two orders (``a`` shown first, then ``b`` first) as two votes;
the confidence is the share of the orders whose answer is the criterion's verdict: 1.0 when
both orders name the winner, 0.5 when one order answered ``tie`` and the other named a
contender (the verdict is then a tie), 0.0 when each order named a different contender.

No extra calls: every comparison already asks both orders. Only comparisons have orders;
another mode is refused.

Example:
    >>> from judge.confidence.spec import parse_method
    >>> from judge.config import JudgeSettings
    >>> SwapMethod(parse_method("swap")).check("score", JudgeSettings())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: swap compares the two orders of a comparison; 'score' has none (...)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.confidence.ballot import Ballot
from judge.confidence.base import PAIRWISE_MODES, ItemEstimator, Method, answers_of

if TYPE_CHECKING:
    from judge.agent.panel import Combined
    from judge.config import JudgeSettings
    from skills.kinds import Skill
    from skills.types import SkillInput, SkillOutput


class SwapEstimator(ItemEstimator):
    async def ballots(
        self, skill: Skill, inp: SkillInput, outputs: list[SkillOutput], merged: Combined
    ) -> dict[str, Ballot]:
        return {
            key: Ballot.of([answer], reason="this order has no answer")
            for key, answer in answers_of(merged.output).items()
        }


class SwapMethod(Method):
    name = "swap"
    estimator_class = SwapEstimator

    def check(self, mode: str, settings: JudgeSettings) -> None:
        if mode not in PAIRWISE_MODES:
            raise ValueError(
                f"swap compares the two orders of a comparison; {mode!r} has none (use it "
                "with judge compare or mode compare/edit_compare; for scores try samples:K)"
            )
