"""Request and response models of the HTTP API (separate from the engine's domain).

``POST /v1/score`` takes either a Submission (docs/design.md#submission-and-result-mode-score) or
``{"submission": Submission, "options": ScoreOptions}``.

Example:
    >>> ScoreOptions(retrieval="none").overrides()
    {'retrieval': 'none'}
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from judge.domain.submission import Submission
from judge.modes.compare.options import CompareOptions
from judge.modes.compare.request import Comparison
from judge.modes.score.options import ScoreOptions

__all__ = ["CompareRequest", "ScoreOptions", "ScoreRequest", "SkillInfo"]


class ScoreRequest(BaseModel):
    """The wrapped form of a score request."""

    model_config = ConfigDict(extra="forbid")

    submission: Submission
    options: ScoreOptions = Field(default_factory=ScoreOptions)


class CompareRequest(BaseModel):
    """The wrapped form of a compare request."""

    model_config = ConfigDict(extra="forbid")

    comparison: Comparison
    options: CompareOptions = Field(default_factory=CompareOptions)


class SkillInfo(BaseModel):
    """One skill card, as listed by ``GET /v1/skills``."""

    name: str
    kind: str
    version: str
    modality: str
    categories: list[str]
    dimensions: list[str]
    memory: str | None
    enabled: bool
