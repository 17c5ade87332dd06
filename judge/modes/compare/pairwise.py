"""What the pairwise modes share (``compare``, ``edit_compare``): two contenders ``a`` and
``b``, each criterion asked in both orders so that a position-biased judge cannot make a
winner (docs/design.md#comparison).

A pairwise mode says only what differs: its criteria and the card asking each, the work
item's modality, an optional shared *source* view every item also sees, the text the judge
reads, and the words of its error messages.

Example:
    >>> from judge.modes import get_mode
    >>> m = get_mode("edit_compare")
    >>> isinstance(m, PairwiseMode), m.source, m.options_model.__name__, m.id_field
    (True, 'source_image', 'CompareOptions', 'comparison_id')
"""

from __future__ import annotations

from abc import abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel

from judge.errors import InputError
from judge.modes.base import Mode, RequestT, ResultT, SafetyTarget, Views, screen_targets
from judge.modes.compare.options import CompareOptions
from skills.types import SkillInput

if TYPE_CHECKING:
    from judge.agent.context import RunContext
    from judge.agent.work import WorkItem
    from judge.config import JudgeSettings
    from skills.registry import SkillRegistry

SIDES = ("a", "b")
ORDERS = (("a", "b"), ("b", "a"))
"""(first, second): each criterion is asked once with ``a`` first and once with ``b`` first."""


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


class PairwiseMode(Mode[RequestT, ResultT]):
    """Two contenders judged per criterion in both orders; subclasses name their request and
    result models (``PairwiseMode[Comparison, ComparisonResult]``), set the class attributes
    below and implement :meth:`criteria` and :meth:`texts`."""

    options_model: ClassVar[type[BaseModel]] = CompareOptions
    id_field: ClassVar[str] = "comparison_id"
    modality: ClassVar[str]
    """the work items' modality (the skill kind's input shape)"""
    source: ClassVar[str | None] = None
    """a request field naming an image both contenders are judged against (a view of that
    name, seen as ``source`` by every item and screened by the gate), or None"""
    criterion_word: ClassVar[str] = "criterion"
    maker_word: ClassVar[str] = "model"
    contenders_word: ClassVar[str] = "images"
    """how messages name a criterion, a contender's maker and the contenders"""

    @abstractmethod
    def criteria(self, registry: SkillRegistry) -> list[str]:
        """Every criterion a request may ask (what ``registry`` has cards for)."""

    def card_of(self, criterion: str) -> str:
        """The card asking ``criterion`` (by default, the card of that name)."""
        return criterion

    @abstractmethod
    def texts(self, request: Any) -> tuple[str, str]:
        """The request's ``(brief, prompt)`` as the skills see them."""

    def check(self, request: BaseModel, registry: SkillRegistry, settings: JudgeSettings) -> None:
        assert isinstance(request, self.request_model)
        req: Any = request
        known, a, b = self.criteria(registry), req.a.model, req.b.model
        check_pair(req.criteria, known, a, b, criterion=self.criterion_word, maker=self.maker_word)

    def load_views(
        self, request: BaseModel, settings: JudgeSettings, base_dir: Path | None
    ) -> Views:
        from judge.io.prepare import prepare_views

        assert isinstance(request, self.request_model)
        names = {side: f"{side}.image" for side in SIDES}  # view name → request field
        refs = {field: getattr(request, side).image for side, field in names.items()}
        if self.source:
            names = {self.source: self.source, **names}
            refs = {self.source: getattr(request, self.source), **refs}
        views = prepare_views(refs, settings, base_dir)
        payloads = {k: views.payloads[v] for k, v in names.items()}
        if payloads["a"].sha256 == payloads["b"].sha256:
            need = f"a comparison needs two different {self.contenders_word}"
            raise InputError("b.image", f"is the same image as a.image; {need}")
        return Views(payloads=payloads, pil={k: views.pil[v] for k, v in names.items()})

    def plan(self, ctx: RunContext) -> list[WorkItem]:
        from judge.agent.work import WorkItem

        shared = (("source", self.source),) if self.source else ()
        return [
            WorkItem(
                key=f"{name}/{first}-first",
                skill=self.card_of(name),
                modality=self.modality,
                views=(*shared, ("first", first), ("second", second)),
                tags=(("first", first), ("criterion", name)),
            )
            for name in ctx.request.criteria
            for first, second in ORDERS
        ]

    def _input(self, ctx: RunContext, images: dict) -> SkillInput:
        brief, prompt = self.texts(ctx.request)
        return SkillInput(
            task_id=ctx.request_id,
            category="",
            brief=brief,
            prompt=prompt,
            image=images.get("image"),
            images=images,
            allow_tie=ctx.settings.compare_allow_tie,
        )

    async def skill_input(self, ctx: RunContext, item: WorkItem) -> SkillInput:
        return self._input(ctx, {role: ctx.views[view] for role, view in item.views})

    def safety_targets(self, ctx: RunContext) -> list[SafetyTarget]:
        images = [("source", ctx.views[self.source])] if self.source else []
        images += [(side, ctx.views[side]) for side in SIDES]
        return screen_targets(lambda parts: self._input(ctx, parts), images)
