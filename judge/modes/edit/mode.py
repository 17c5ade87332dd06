"""The ``edit`` mode: a source image, an instruction and edited image(s)
(docs/design.md#edit-submission-and-result).

Views: ``source`` and ``images[i]``. Per edited image the planner makes one
``shift_metrics`` item (colour shift, structure distance, face identity, text rendering,
computed locally; with a judge model the model decides which apply) and, for every
criterion card (kind ``edit-rubric``) and sample, one judge item that sees the source, the
instruction and that edited image. The gate screens the instruction and every image.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from pydantic import BaseModel

from judge.modes.base import Mode, SafetyTarget, Views, screen_targets
from judge.modes.edit.cards import CRITERION_KIND, METRICS_CARD
from judge.modes.edit.options import EditOptions
from judge.modes.edit.request import EditSubmission
from judge.modes.edit.result import EditResult
from skills.types import SkillInput

if TYPE_CHECKING:
    from judge.agent.context import RunContext
    from judge.agent.work import SafetyOutcome, WorkItem, WorkOutcome
    from judge.config import JudgeSettings

SOURCE = "source_image"


def edited_view(index: int) -> str:
    """The view name of edited image ``index`` (its field path)."""
    return f"images[{index}]"


class EditMode(Mode[EditSubmission, EditResult]):
    """Image-edit evaluation: criteria with rationales, success, measured shift metrics."""

    name: ClassVar[str] = "edit"
    options_model: ClassVar[type[BaseModel]] = EditOptions
    wrapper_key: ClassVar[str] = "edit"

    def load_views(
        self, request: BaseModel, settings: JudgeSettings, base_dir: Path | None
    ) -> Views:
        from judge.io.prepare import prepare_views

        assert isinstance(request, EditSubmission)
        refs = {SOURCE: request.source_image}
        refs.update({edited_view(i): ref for i, ref in enumerate(request.images)})
        views = prepare_views(refs, settings, base_dir)
        return Views(payloads=views.payloads, pil=views.pil)

    def plan(self, ctx: RunContext) -> list[WorkItem]:
        from judge.agent.work import WorkItem

        cards = ctx.registry.cards(kind=CRITERION_KIND)
        items = []
        for i in range(len(ctx.request.images)):
            views = (("source", SOURCE), ("edited", edited_view(i)))
            items.append(WorkItem(f"{METRICS_CARD}/img{i}", METRICS_CARD, "edit", i, views=views))
            for card in cards:
                for s in range(ctx.settings.edit_samples):
                    items.append(
                        WorkItem(
                            f"{card.name}/img{i}/s{s}",
                            card.name,
                            "edit",
                            i,
                            views=views,
                            tags=(("sample", str(s)),),
                        )
                    )
        return items

    def _input(self, ctx: RunContext, images: dict, **options: object) -> SkillInput:
        req: EditSubmission = ctx.request
        return SkillInput(
            task_id=ctx.request_id,
            category="",
            brief="",
            prompt=req.instruction,
            image=images.get("edited") or images.get("image"),
            images=images,
            options=dict(options),
        )

    async def skill_input(self, ctx: RunContext, item: WorkItem) -> SkillInput:
        images = {role: ctx.views[view] for role, view in item.views}
        sample = int(item.tag_map.get("sample", "0"))
        return self._input(ctx, images, sample=sample, dinov2=ctx.settings.edit_dinov2)

    def safety_targets(self, ctx: RunContext) -> list[SafetyTarget]:
        edited = range(len(ctx.request.images))
        images = [("source", ctx.views[SOURCE])]
        images += [(f"image[{i}]", ctx.views[edited_view(i)]) for i in edited]
        return screen_targets(lambda parts: self._input(ctx, parts), images)

    def aggregate(
        self, ctx: RunContext, outcomes: list[WorkOutcome], safety: SafetyOutcome | None
    ) -> EditResult:
        from judge.modes.edit.aggregate import aggregate

        return aggregate(ctx, outcomes, safety)
