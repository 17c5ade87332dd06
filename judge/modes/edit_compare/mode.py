"""The ``edit_compare`` mode: two edits of one source and instruction, each edit criterion
asked in both orders.

Views: ``source_image``, ``a`` and ``b``. For every criterion (``instruction_following``,
``image_consistency``, ``visual_quality``: the edit mode's, asked by the cards
``pair_<criterion>`` of kind ``edit-pairwise``) the planner makes two work items, one with
``a`` FIRST and one with ``b`` FIRST; the judge sees the source, the instruction (a data block)
and the two edits, never the editors' names. Aggregation is the compare mode's: a winner needs
both orders to agree, otherwise a tie with ``position_consistent: false``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from judge.modes.compare.pairwise import PairwiseMode
from judge.modes.edit_compare.cards import KIND, PREFIX, card_of
from judge.modes.edit_compare.request import EditComparison
from judge.modes.edit_compare.result import EditComparisonResult

if TYPE_CHECKING:
    from judge.agent.context import RunContext
    from judge.agent.work import SafetyOutcome, WorkOutcome
    from skills.registry import SkillRegistry

SOURCE = "source_image"


def edit_criteria(registry: SkillRegistry) -> list[str]:
    """Every criterion an edit comparison can ask (the enabled edit-pairwise cards).

    Example:
        >>> from skills.registry import default_registry
        >>> edit_criteria(default_registry())
        ['image_consistency', 'instruction_following', 'visual_quality']
    """
    return [c.name.removeprefix(PREFIX) for c in registry.cards(kind=KIND)]


class EditCompareMode(PairwiseMode[EditComparison, EditComparisonResult]):
    """Pairwise comparison of two edits of one source with position debiasing."""

    name: ClassVar[str] = "edit_compare"
    wrapper_key: ClassVar[str] = "edit_comparison"
    modality: ClassVar[str] = "edit_pair"
    source: ClassVar[str | None] = SOURCE
    criterion_word: ClassVar[str] = "edit criterion"
    maker_word: ClassVar[str] = "editor"
    contenders_word: ClassVar[str] = "edits"

    def criteria(self, registry: SkillRegistry) -> list[str]:
        return edit_criteria(registry)

    def card_of(self, criterion: str) -> str:
        return card_of(criterion)

    def texts(self, request: Any) -> tuple[str, str]:
        return "", request.instruction

    def aggregate(
        self, ctx: RunContext, outcomes: list[WorkOutcome], safety: SafetyOutcome | None
    ) -> EditComparisonResult:
        from judge.modes.edit_compare.aggregate import aggregate

        return aggregate(ctx, outcomes, safety)
