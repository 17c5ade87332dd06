"""The ``compare`` mode: two images of one prompt, each criterion asked in both orders.

Views: ``a`` and ``b``. For every criterion card the planner makes two work items, one with
``a`` in the FIRST position and one with ``b`` there; the judge never sees model names. The
aggregator maps each answer back to a/b (:mod:`judge.modes.compare.aggregate`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from pydantic import BaseModel

from judge.errors import InputError
from judge.modes.base import Mode, SafetyTarget, Views, screen_targets
from judge.modes.compare.options import CompareOptions
from judge.modes.compare.request import Comparison
from judge.modes.compare.result import ComparisonResult
from skills.types import SkillInput

if TYPE_CHECKING:
    from judge.agent.context import RunContext
    from judge.agent.work import SafetyOutcome, WorkItem, WorkOutcome
    from judge.config import JudgeSettings
    from skills.registry import SkillRegistry

KIND = "pairwise-preference"
SIDES = ("a", "b")


def criteria_names(registry: SkillRegistry) -> list[str]:
    """Every criterion the registry knows (the enabled pairwise cards)."""
    return [c.name for c in registry.cards(kind=KIND)]


def check_pair(
    criteria: list[str],
    known: list[str],
    model_a: str | None,
    model_b: str | None,
    criterion: str = "criterion",
    maker: str = "model",
) -> None:
    """Raise InputError unless every criterion is known and listed once and the two sides
    name different makers (``criterion``/``maker`` word the messages).

    Example:
        >>> check_pair(["preference"], ["preference"], "flux", "sd3")
        >>> check_pair(["x"], ["preference"], None, None)
        Traceback (most recent call last):
        judge.errors.InputError: criteria[0]: unknown criterion 'x'; available: ['preference']
    """
    for i, name in enumerate(criteria):
        if name not in known:
            raise InputError(f"criteria[{i}]", f"unknown {criterion} {name!r}; available: {known}")
        if name in criteria[:i]:
            raise InputError(f"criteria[{i}]", f"criterion {name!r} is listed twice")
    if model_a and model_a == model_b:
        raise InputError("b.model", f"both sides name the {maker} {model_a!r}")


class CompareMode(Mode):
    """Pairwise comparison with position debiasing."""

    name: ClassVar[str] = "compare"
    request_model: ClassVar[type[BaseModel]] = Comparison
    result_model: ClassVar[type[BaseModel]] = ComparisonResult
    options_model: ClassVar[type[BaseModel]] = CompareOptions
    wrapper_key: ClassVar[str] = "comparison"
    id_field: ClassVar[str] = "comparison_id"

    def check(self, request: BaseModel, registry: SkillRegistry, settings: JudgeSettings) -> None:
        assert isinstance(request, Comparison)
        check_pair(request.criteria, criteria_names(registry), request.a.model, request.b.model)

    def load_views(
        self, request: BaseModel, settings: JudgeSettings, base_dir: Path | None
    ) -> Views:
        from judge.io.prepare import prepare_views

        assert isinstance(request, Comparison)
        views = prepare_views(
            {f"{side}.image": getattr(request, side).image for side in SIDES}, settings, base_dir
        )
        payloads = {side: views.payloads[f"{side}.image"] for side in SIDES}
        pil = {side: views.pil[f"{side}.image"] for side in SIDES}
        if payloads["a"].sha256 == payloads["b"].sha256:
            raise InputError(
                "b.image", "is the same image as a.image; a comparison needs two different images"
            )
        return Views(payloads=payloads, pil=pil)

    def plan(self, ctx: RunContext) -> list[WorkItem]:
        from judge.agent.work import WorkItem

        items = []
        for name in ctx.request.criteria:
            for first, second in (("a", "b"), ("b", "a")):
                items.append(
                    WorkItem(
                        key=f"{name}/{first}-first",
                        skill=name,
                        modality="pair",
                        views=(("first", first), ("second", second)),
                        tags=(("first", first), ("criterion", name)),
                    )
                )
        return items

    def _input(self, ctx: RunContext, images: dict) -> SkillInput:
        req: Comparison = ctx.request
        return SkillInput(
            task_id=ctx.request_id,
            category="",
            brief=req.brief or "",
            prompt=req.prompt,
            image=images.get("image"),
            images=images,
            allow_tie=ctx.settings.compare_allow_tie,
        )

    async def skill_input(self, ctx: RunContext, item: WorkItem) -> SkillInput:
        return self._input(ctx, {role: ctx.views[view] for role, view in item.views})

    def safety_targets(self, ctx: RunContext) -> list[SafetyTarget]:
        images = [(side, ctx.views[side]) for side in SIDES]
        return screen_targets(lambda parts: self._input(ctx, parts), images)

    def aggregate(
        self, ctx: RunContext, outcomes: list[WorkOutcome], safety: SafetyOutcome | None
    ) -> ComparisonResult:
        from judge.modes.compare.aggregate import aggregate

        return aggregate(ctx, outcomes, safety)
