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

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from pydantic import BaseModel

from judge.errors import InputError
from judge.modes.base import Mode, SafetyTarget, Views, screen_targets
from judge.modes.compare.mode import check_pair
from judge.modes.compare.options import CompareOptions
from judge.modes.edit_compare.cards import KIND, PREFIX, card_of
from judge.modes.edit_compare.request import EditComparison
from judge.modes.edit_compare.result import EditComparisonResult
from skills.types import SkillInput

if TYPE_CHECKING:
    from judge.agent.context import RunContext
    from judge.agent.work import SafetyOutcome, WorkItem, WorkOutcome
    from judge.config import JudgeSettings
    from skills.registry import SkillRegistry

SOURCE = "source_image"
SIDES = ("a", "b")


def edit_criteria(registry: SkillRegistry) -> list[str]:
    """Every criterion an edit comparison can ask (the enabled edit-pairwise cards).

    Example:
        >>> from skills.registry import default_registry
        >>> edit_criteria(default_registry())
        ['image_consistency', 'instruction_following', 'visual_quality']
    """
    return [c.name.removeprefix(PREFIX) for c in registry.cards(kind=KIND)]


class EditCompareMode(Mode):
    """Pairwise comparison of two edits with position debiasing."""

    name: ClassVar[str] = "edit_compare"
    request_model: ClassVar[type[BaseModel]] = EditComparison
    result_model: ClassVar[type[BaseModel]] = EditComparisonResult
    options_model: ClassVar[type[BaseModel]] = CompareOptions
    wrapper_key: ClassVar[str] = "edit_comparison"
    id_field: ClassVar[str] = "comparison_id"

    def check(self, request: BaseModel, registry: SkillRegistry, settings: JudgeSettings) -> None:
        assert isinstance(request, EditComparison)
        known = edit_criteria(registry)
        a, b = request.a.model, request.b.model
        check_pair(request.criteria, known, a, b, criterion="edit criterion", maker="editor")

    def load_views(
        self, request: BaseModel, settings: JudgeSettings, base_dir: Path | None
    ) -> Views:
        from judge.io.prepare import prepare_views

        assert isinstance(request, EditComparison)
        refs = {SOURCE: request.source_image}
        refs.update({f"{side}.image": getattr(request, side).image for side in SIDES})
        views = prepare_views(refs, settings, base_dir)
        names = {SOURCE: SOURCE, "a": "a.image", "b": "b.image"}
        payloads = {k: views.payloads[v] for k, v in names.items()}
        if payloads["a"].sha256 == payloads["b"].sha256:
            raise InputError(
                "b.image", "is the same image as a.image; a comparison needs two different edits"
            )
        return Views(payloads=payloads, pil={k: views.pil[v] for k, v in names.items()})

    def plan(self, ctx: RunContext) -> list[WorkItem]:
        from judge.agent.work import WorkItem

        return [
            WorkItem(
                key=f"{name}/{first}-first",
                skill=card_of(name),
                modality="edit_pair",
                views=(("source", SOURCE), ("first", first), ("second", second)),
                tags=(("first", first), ("criterion", name)),
            )
            for name in ctx.request.criteria
            for first, second in (("a", "b"), ("b", "a"))
        ]

    def _input(self, ctx: RunContext, images: dict) -> SkillInput:
        req: EditComparison = ctx.request
        return SkillInput(
            task_id=ctx.request_id,
            category="",
            brief="",
            prompt=req.instruction,
            image=images.get("image"),
            images=images,
            allow_tie=ctx.settings.compare_allow_tie,
        )

    async def skill_input(self, ctx: RunContext, item: WorkItem) -> SkillInput:
        return self._input(ctx, {role: ctx.views[view] for role, view in item.views})

    def safety_targets(self, ctx: RunContext) -> list[SafetyTarget]:
        images = [("source", ctx.views[SOURCE])] + [(side, ctx.views[side]) for side in SIDES]
        return screen_targets(lambda parts: self._input(ctx, parts), images)

    def aggregate(
        self, ctx: RunContext, outcomes: list[WorkOutcome], safety: SafetyOutcome | None
    ) -> EditComparisonResult:
        from judge.modes.edit_compare.aggregate import aggregate

        return aggregate(ctx, outcomes, safety)
