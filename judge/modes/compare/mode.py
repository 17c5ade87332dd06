"""The ``compare`` mode: two images of one prompt, each criterion asked in both orders.

Views: ``a`` and ``b``. For every criterion card the planner makes two work items, one with
``a`` in the FIRST position and one with ``b`` there; the judge never sees model names. The
aggregator maps each answer back to a/b (:mod:`judge.modes.compare.aggregate`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from judge.modes.compare.pairwise import PairwiseMode
from judge.modes.compare.pairwise import check_pair as check_pair
from judge.modes.compare.request import Comparison
from judge.modes.compare.result import ComparisonResult

if TYPE_CHECKING:
    from judge.agent.context import RunContext
    from judge.agent.work import SafetyOutcome, WorkOutcome
    from skills.registry import SkillRegistry

KIND = "pairwise-preference"


def criteria_names(registry: SkillRegistry) -> list[str]:
    """Every criterion the registry knows (the enabled pairwise cards)."""
    return [c.name for c in registry.cards(kind=KIND)]


class CompareMode(PairwiseMode[Comparison, ComparisonResult]):
    """Pairwise comparison of two images of one prompt with position debiasing."""

    name: ClassVar[str] = "compare"
    wrapper_key: ClassVar[str] = "comparison"
    modality: ClassVar[str] = "pair"

    def criteria(self, registry: SkillRegistry) -> list[str]:
        return criteria_names(registry)

    def texts(self, request: Any) -> tuple[str, str]:
        return request.brief or "", request.prompt

    def aggregate(
        self, ctx: RunContext, outcomes: list[WorkOutcome], safety: SafetyOutcome | None
    ) -> ComparisonResult:
        from judge.modes.compare.aggregate import aggregate

        return aggregate(ctx, outcomes, safety)
