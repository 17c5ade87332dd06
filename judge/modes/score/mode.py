"""The ``score`` mode: one prompt–image submission in, a :class:`Result` out
(docs/design.md#submission-and-result-mode-score).

Views: ``images[i]`` for each generated image and ``task.target_image`` for imitation
tasks. Subjective cards see the prompt or one image (calibrated by exemplars retrieved for
that view); checklist cards see the prompt (QA) or one image (VQA); the gate screens the
prompt and every image.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from pydantic import BaseModel

from judge.domain.result import Result
from judge.domain.submission import Submission
from judge.errors import InputError
from judge.modes.base import Mode, SafetyTarget, Views
from judge.modes.score.options import ScoreOptions
from judge.modes.score.planning import image_view, plan_work, subjective_cards
from memory.store import MEMORY_NAME
from skills.types import CheckSpec, Exemplar, MemoryContext, SkillInput

if TYPE_CHECKING:
    from judge.agent.context import RunContext
    from judge.agent.exemplars import ExemplarQuery
    from judge.agent.work import SafetyOutcome, WorkItem, WorkOutcome
    from judge.config import JudgeSettings
    from skills.registry import SkillRegistry

TARGET = "task.target_image"


def _checks_for(sub: Submission, modality: str, ids: tuple[str, ...]) -> tuple[CheckSpec, ...]:
    """The checkpoint texts of one modality, in checklist order."""
    wanted = set(ids)
    out = []
    for cp in sub.task.checklist:
        text = cp.prompt_check if modality == "prompt" else cp.image_check
        if cp.id in wanted and text:
            out.append(CheckSpec(id=cp.id, primitive=cp.primitive.value, text=text))
    return tuple(out)


class ScoreMode(Mode[Submission, Result]):
    """Prompt–image scoring: safety, subjective dimensions, paired checklist verification."""

    name: ClassVar[str] = "score"
    options_model: ClassVar[type[BaseModel]] = ScoreOptions
    wrapper_key: ClassVar[str] = "submission"

    def check(self, request: BaseModel, registry: SkillRegistry, settings: JudgeSettings) -> None:
        try:
            subjective_cards(registry, settings.skills, "prompt")
        except KeyError as exc:
            raise InputError("skills", str(exc.args[0])) from None
        cards = registry.cards(enabled_only=False)
        known = {n for c in cards for n in (c.name, *c.dimension_names)}
        for key, name in settings.memories.items():
            if key not in known:
                raise InputError(
                    f"memories.{key}",
                    "no card or dimension of that name (`judge skills` lists them)",
                )
            if not MEMORY_NAME.match(name):
                raise InputError(f"memories.{key}", f"{name[:80]!r} is not a memory name")

    def load_views(
        self, request: BaseModel, settings: JudgeSettings, base_dir: Path | None
    ) -> Views:
        from judge.io.prepare import prepare_views

        assert isinstance(request, Submission)
        refs = {image_view(i): ref for i, ref in enumerate(request.images)}
        if request.task.target_image:
            refs[TARGET] = request.task.target_image
        # the score kinds of the llm backend only show the payloads to the models; the
        # exemplar query decodes an image it needs from the file (LazyImages)
        keep = frozenset(refs) - {TARGET}
        views = prepare_views(refs, settings, base_dir, keep_pil=keep, as_sent=True)
        return Views(payloads=views.payloads, pil=views.pil)

    def plan(self, ctx: RunContext) -> list[WorkItem]:
        s = ctx.settings
        return plan_work(
            ctx.request.task,
            ctx.registry,
            n_images=len(ctx.request.images),
            batching=s.checkpoint_batching,
            skills=s.skills,
            subjective_batching=s.subjective_batching,
        )

    def base_input(
        self, ctx: RunContext, modality: str, image: str | None = None, **extra: object
    ) -> SkillInput:
        """The submission as a skill input, with image view ``image`` in the ``image`` role."""
        sub: Submission = ctx.request
        payload = ctx.views.get(image) if image else None
        return SkillInput(
            task_id=sub.task.id,
            category=sub.task.category.value,
            brief=sub.task.brief,
            prompt=sub.prompt,
            image=payload,
            target_image=ctx.views.get(TARGET),
            images={"image": payload} if payload is not None else {},
            **extra,  # type: ignore[arg-type]  # extra holds SkillInput's optional fields
        )

    async def skill_input(self, ctx: RunContext, item: WorkItem) -> SkillInput:
        card = ctx.registry.card(item.skill)
        category = ctx.request.task.category.value
        view = item.view_map.get("image")
        exemplars: tuple[Exemplar, ...] = ()
        memory: MemoryContext | None = None
        if card.kind == "subjective-rubric" and ctx.exemplars is not None:
            query: ExemplarQuery = {
                "category": category,
                "prompt": ctx.request.prompt,
                "image": ctx.pil_views.get(view) if view else None,
                "image_key": item.image,
            }
            if ctx.backend == "local":
                memory = await ctx.exemplars.memory_context(card, **query)
            else:
                exemplars = await ctx.exemplars.for_card(card, **query)
        return self.base_input(
            ctx,
            item.modality,
            view,
            checks=_checks_for(ctx.request, item.modality, item.checks),
            exemplars=exemplars,
            memory=memory,
            memory_name=card.memory_for(category, ctx.settings.memories),
        )

    def safety_targets(self, ctx: RunContext) -> list[SafetyTarget]:
        targets = [SafetyTarget("prompt", "prompt", self.base_input(ctx, "prompt"))]
        for i in range(len(ctx.request.images)):
            inp = self.base_input(ctx, "image", image_view(i))
            targets.append(SafetyTarget(f"image[{i}]", "image", inp))
        return targets

    def aggregate(
        self, ctx: RunContext, outcomes: list[WorkOutcome], safety: SafetyOutcome | None
    ) -> Result:
        from judge.modes.score.aggregate import aggregate

        return aggregate(ctx, outcomes, safety)
