"""What a mode is: a registered unit of judgment (docs/design.md#modes).

A mode owns its request model, how its inputs become named *views* (decoded images by
name), the work it plans, the inputs each skill call sees, the safety targets, and how the
outcomes become its result model. The graph, the engine, the service, batches and
meta-evaluation only ever talk to this interface, so a new kind of judgment is one package
under ``judge/modes/`` plus its cards.

Example:
    >>> from judge.modes import get_mode
    >>> get_mode("score").name, get_mode("compare").wrapper_key
    ('score', 'comparison')
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, get_args, get_origin

from pydantic import BaseModel, ValidationError

from judge.errors import InputError
from judge.validation import as_input_error, problem_list, validate_model

if TYPE_CHECKING:  # the context imports the gateway; modes must stay cheap to import
    from judge.agent.context import RunContext
    from judge.agent.work import SafetyOutcome, WorkItem, WorkOutcome
    from judge.config import JudgeSettings
    from skills.registry import SkillRegistry
    from skills.types import SkillInput


RequestT = TypeVar("RequestT", bound=BaseModel)
ResultT = TypeVar("ResultT", bound=BaseModel)


@dataclass(frozen=True)
class Views:
    """A request's decoded images by view name, as payloads for models and as PIL images."""

    payloads: dict[str, Any]
    pil: Mapping[str, Any]  # may decode a view on first use (judge.io.prepare.LazyImages)


@dataclass(frozen=True)
class Unwrapped:
    """A parsed body: the request, the engine overrides its options ask for, and whether it
    came wrapped (its fields are then named under the wrapper key)."""

    request: BaseModel
    overrides: dict[str, Any]
    wrapped: bool


@dataclass(frozen=True)
class SafetyTarget:
    """One thing the safety gate screens: a label for reports, the card modality that
    screens it (``prompt`` or ``image``), and the input those cards see."""

    label: str
    modality: str
    input: SkillInput


def screen_targets(
    make_input: Callable[[dict[str, Any]], SkillInput], images: list[tuple[str, Any]]
) -> list[SafetyTarget]:
    """The prompt, then each ``(label, image)``, as safety targets; ``make_input(images)``
    builds the input the screening cards see (no images for the prompt)."""
    targets = [SafetyTarget("prompt", "prompt", make_input({}))]
    for label, image in images:
        targets.append(SafetyTarget(label, "image", make_input({"image": image})))
    return targets


class Mode(ABC, Generic[RequestT, ResultT]):
    """One kind of judgment. A subclass names its request and result models as the type
    arguments (``class ScoreMode(Mode[Submission, Result])`` sets :attr:`request_model` and
    :attr:`result_model`; a generic subclass keeps those two parameters, in that order), sets
    the other class attributes and implements the steps."""

    name: ClassVar[str]
    """registry name (``score``, ``compare``, …); also the ``"mode"`` field of requests"""
    request_model: ClassVar[type[BaseModel]]
    """the request's model: the first type argument"""
    result_model: ClassVar[type[BaseModel]]
    """the result's model: the second type argument"""
    options_model: ClassVar[type[BaseModel]]
    """per-request options a service client may set (never paths, keys or endpoints)"""
    wrapper_key: ClassVar[str]
    """the key of the wrapped form ``{"<wrapper_key>": request, "options": {...}}``"""
    id_field: ClassVar[str] = "submission_id"
    """the result field that identifies the judged request"""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for base in cls.__dict__.get("__orig_bases__", ()):
            origin, args = get_origin(base), get_args(base)
            concrete = args and not any(isinstance(a, TypeVar) for a in args)
            if isinstance(origin, type) and issubclass(origin, Mode) and concrete:
                cls.request_model, cls.result_model = args

    def parse(self, data: Any) -> BaseModel:
        """Validate untrusted JSON into the request model; errors name the field."""
        if isinstance(data, self.request_model):
            return data
        if isinstance(data, dict) and "mode" in data:
            data = {k: v for k, v in data.items() if k != "mode"}
        return validate_model(self.request_model, data, root=f"({self.wrapper_key})")

    def unwrap(self, body: dict[str, Any]) -> Unwrapped:
        """A body of this mode, bare (the request itself) or wrapped
        (``{"<wrapper_key>": request, "options": {...}}``), as the request and the engine
        overrides its options ask for. Errors name the field as the client wrote it
        (``submission.prompt``, ``options.retrieval_k``).

        Example:
            >>> from judge.modes import get_mode
            >>> task = {"id": "t", "category": "OE", "brief": "b"}
            >>> body = {"submission": {"task": task, "prompt": "p"},
            ...         "options": {"retrieval": "none"}}
            >>> get_mode("score").unwrap(body).overrides
            {'retrieval': 'none'}
        """
        key = self.wrapper_key
        if key not in body:
            return Unwrapped(self.parse(body), {}, wrapped=False)
        extra = sorted(set(body) - {key, "options", "mode"})
        if extra:
            raise InputError(extra[0], "unknown field (expected only the request and options)")
        if not isinstance(body[key], dict):
            raise InputError(key, f"expected a JSON object, got {type(body[key]).__name__}")
        try:
            request = self.parse(body[key])
        except InputError as exc:
            raise exc.under(key) from None
        return Unwrapped(request, self.parse_options(body.get("options", {})), wrapped=True)

    def parse_options(self, options: Any, field: str = "options") -> dict[str, Any]:
        """Validate per-request options into engine overrides; errors name ``options.<name>``."""
        if not isinstance(options, dict):
            raise InputError(field, f"expected a JSON object, got {type(options).__name__}")
        try:
            parsed = self.options_model.model_validate(options)
        except ValidationError as exc:
            def named(loc: tuple) -> str:
                return ".".join([field, *(str(p) for p in loc)])

            problems = problem_list(exc.errors(), self.options_model, named, "unknown option")
            problems = [(f, m.removeprefix("Value error, ")) for f, m in problems]
            raise as_input_error(problems) from None
        return parsed.overrides()  # type: ignore[attr-defined]  # every options model has overrides()

    def check(self, request: BaseModel, registry: SkillRegistry, settings: JudgeSettings) -> None:
        """Reject requests naming unknown cards or options (raise ``InputError``)."""
        return None

    @abstractmethod
    def load_views(
        self, request: BaseModel, settings: JudgeSettings, base_dir: Path | None
    ) -> Views:
        """Fetch and decode every image the request refers to (blocking; runs in a thread)."""

    @abstractmethod
    def plan(self, ctx: RunContext) -> list[WorkItem]:
        """Every skill invocation for this request, in a stable order."""

    @abstractmethod
    async def skill_input(self, ctx: RunContext, item: WorkItem) -> SkillInput:
        """What one work item's skill sees (may retrieve exemplars; may raise: the engine
        turns an exception here into unscored values for the item)."""

    @abstractmethod
    def safety_targets(self, ctx: RunContext) -> list[SafetyTarget]:
        """What the safety gate screens for this request."""

    @abstractmethod
    def aggregate(
        self, ctx: RunContext, outcomes: list[WorkOutcome], safety: SafetyOutcome | None
    ) -> ResultT:
        """Build the result model from the work outcomes and the safety verdicts."""
