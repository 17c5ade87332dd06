"""The values that cross the boundary between the engine and a skill.

Skills never import the engine: the engine hands them a :class:`SkillInput` and a
:class:`ModelClient`, and gets back a :class:`SkillOutput`. "Could not score" is a value
(``score=None`` / ``verdict=None`` with a reason), never an exception.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

T = TypeVar("T", bound=BaseModel)


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
    """Everything one skill invocation may look at."""

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


@dataclass
class ScoreValue:
    """A subjective score or an unscored value with its reason."""

    score: int | None = None
    rationale: str | None = None
    reason: str | None = None


@dataclass
class VerdictValue:
    """A checkpoint verdict or an unscored value with its reason."""

    verdict: bool | None = None
    rationale: str | None = None
    reason: str | None = None


@dataclass
class SafetyValue:
    """A safety filter's decision; ``passed`` None means undecided."""

    passed: bool | None = None
    categories: list[str] = field(default_factory=list)
    rationale: str | None = None
    reason: str | None = None


@dataclass
class SkillOutput:
    """What a skill returns: any of scores, verdicts or a safety decision."""

    scores: dict[str, ScoreValue] = field(default_factory=dict)
    verdicts: dict[str, VerdictValue] = field(default_factory=dict)
    safety: SafetyValue | None = None
    exemplars: tuple[Exemplar, ...] = ()
