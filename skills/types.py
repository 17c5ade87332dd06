"""The values that cross the boundary between the engine and a skill.

Skills never import the engine: the engine hands them a :class:`SkillInput` and a
:class:`ModelClient`, and gets back a :class:`SkillOutput`. "Could not score" is a value
(``score=None`` / ``verdict=None`` with a reason), never an exception.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, Self, TypeVar

from pydantic import BaseModel

T = TypeVar("T", bound=BaseModel)


class Cause(StrEnum):
    """Why a value is unscored. Only ``not_applicable`` is by design; the others make a
    result ``partial``."""

    NO_MODEL = "no_model"
    """the work needs a judge model and the local backend cannot do it"""
    NO_MEMORY = "no_memory"
    """the work needs an exemplar memory that is absent or unreadable"""
    FAILED = "failed"
    """a model call or a skill failed"""
    NOT_APPLICABLE = "not_applicable"
    """nothing to judge by design (no image submitted, not scored for this category)"""
    BLOCKED = "blocked"
    """the safety gate stopped the submission"""


class _Unscorable:
    """Values that may be "unscored": one constructor, a cause and a reason."""

    reason: str | None
    cause: Cause | None

    @classmethod
    def unscored(cls, cause: Cause | str, reason: str) -> Self:
        """The unscored value of this type.

        Example:
            >>> v = ScoreValue.unscored(Cause.NOT_APPLICABLE, "no image submitted")
            >>> v.score, v.cause.value, v.is_failure
            (None, 'not_applicable', False)
        """
        return cls(reason=reason, cause=Cause(cause))  # type: ignore[call-arg]  # subclasses declare the value field

    @property
    def is_failure(self) -> bool:
        """True for an unscored value that should make the result ``partial``."""
        return self.cause is not None and self.cause not in (
            Cause.NOT_APPLICABLE,
            Cause.BLOCKED,
        )


def _default_cause(value: Any, cause: Cause | str | None, reason: str | None) -> Cause | None:
    if value is not None:
        return None
    if cause is not None:
        return Cause(cause)
    return Cause.FAILED if reason else None


class ModelCallError(Exception):
    """A model call that failed for good (after retries and re-asks)."""


class ModelClient(Protocol):
    """What a skill may ask of the model gateway."""

    model: str

    async def structured(
        self, messages: list[dict], schema: type[T], *, tag: str
    ) -> T:  # pragma: no cover - protocol
        """Send ``messages``; return the answer validated against ``schema``.

        ``tag`` identifies the skill card and version (part of the cache key).
        Raises :class:`ModelCallError` when no valid answer could be obtained.
        """
        ...


class DataURL(str):
    """A base64 data URL the judge built: printable ASCII without quotes or backslashes, so
    JSON encodes it as it is (the direct route splices it into request bodies unchanged).

    Example:
        >>> url = DataURL("data:image/png;base64,iVBORw0KGgo=")
        >>> isinstance(url, str) and url.startswith("data:")
        True
    """

    __slots__ = ()


@dataclass(frozen=True)
class ImagePayload:
    """An image ready for a vision model: a data URL and the sha256 of its bytes."""

    data_url: str
    sha256: str
    width: int = 0
    height: int = 0


@dataclass(frozen=True)
class CheckSpec:
    """One checkpoint's text for one modality."""

    id: str
    primitive: str
    text: str


@dataclass(frozen=True)
class Exemplar:
    """A calibration exemplar retrieved from a memory."""

    id: str
    similarity: float | None
    scores: dict[str, float]
    rationales: dict[str, str]
    task_brief: str = ""
    prompt: str | None = None
    image: ImagePayload | None = None


@dataclass(frozen=True)
class MemoryContext:
    """What a local predictor needs from an exemplar memory for one query.

    ``memory`` is a :class:`memory.memory.Memory`; ``vector`` the query embedded with the
    memory's encoder; ``exclude`` exemplar ids that must not be used (cross-validation).
    """

    memory: Any
    vector: Any | None
    image: Any | None
    exclude: frozenset[str] = frozenset()


@dataclass(frozen=True)
class SkillInput:
    """Everything one skill invocation may look at.

    ``images`` holds the image *views* a mode hands this skill by role (``image``,
    ``first``, ``second``, ``source``, …): an open set, so a new mode needs no new field.
    ``image`` is the ``image`` view, kept for the kinds that score one image.
    """

    task_id: str
    category: str
    brief: str
    prompt: str
    image: ImagePayload | None = None
    target_image: ImagePayload | None = None
    checks: tuple[CheckSpec, ...] = ()
    exemplars: tuple[Exemplar, ...] = ()
    memory: MemoryContext | None = None
    memory_name: str | None = None
    images: dict[str, ImagePayload] = field(default_factory=dict)
    show_prompt: bool = True
    allow_tie: bool = False
    options: dict[str, Any] = field(default_factory=dict)
    """mode-specific knobs a kind may read (e.g. ``sample``, ``dinov2`` for edits)"""


@dataclass
class ScoreValue(_Unscorable):
    """A subjective score or an unscored value with its cause and reason."""

    score: int | float | None = None
    rationale: str | None = None
    reason: str | None = None
    cause: Cause | None = None

    def __post_init__(self) -> None:
        self.cause = _default_cause(self.score, self.cause, self.reason)


@dataclass
class VerdictValue(_Unscorable):
    """A checkpoint verdict or an unscored value with its cause and reason."""

    verdict: bool | None = None
    rationale: str | None = None
    reason: str | None = None
    cause: Cause | None = None

    def __post_init__(self) -> None:
        self.cause = _default_cause(self.verdict, self.cause, self.reason)


@dataclass
class ChoiceValue(_Unscorable):
    """A pairwise answer by position (``first``, ``second``, ``tie``), or unscored."""

    choice: str | None = None
    rationale: str | None = None
    reason: str | None = None
    cause: Cause | None = None

    def __post_init__(self) -> None:
        self.cause = _default_cause(self.choice, self.cause, self.reason)


@dataclass
class SafetyValue(_Unscorable):
    """A safety filter's decision; ``passed`` None means undecided."""

    passed: bool | None = None
    categories: list[str] = field(default_factory=list)
    rationale: str | None = None
    reason: str | None = None
    cause: Cause | None = None

    def __post_init__(self) -> None:
        self.cause = _default_cause(self.passed, self.cause, self.reason)


@dataclass
class SkillOutput:
    """What a skill returns: any of scores, verdicts or a safety decision."""

    scores: dict[str, ScoreValue] = field(default_factory=dict)
    verdicts: dict[str, VerdictValue] = field(default_factory=dict)
    safety: SafetyValue | None = None
    exemplars: tuple[Exemplar, ...] = ()
    choices: dict[str, ChoiceValue] = field(default_factory=dict)
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)
