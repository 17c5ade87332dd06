"""Per-request options of the ``score`` mode that a service client may set.

Never paths, keys or endpoints: those are the operator's.

Example:
    >>> ScoreOptions(retrieval="none").overrides()
    {'retrieval': 'none'}
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from judge.confidence.spec import ConfidenceOption, MemoryOption


class ScoreOptions(BaseModel):
    """Per-request options a client may set (never paths, keys or endpoints)."""

    model_config = ConfigDict(extra="forbid")

    backend: Literal["auto", "llm", "local"] | None = None
    skills: list[str] | None = Field(default=None, max_length=64)
    checkpoint_batching: Literal["per_checkpoint", "per_modality"] | None = None
    subjective_batching: Literal["per_dimension", "per_modality"] | None = None
    selection_rule: (
        Literal["objective_then_subjective", "subjective_then_objective", "first"] | None
    ) = None
    speculative_safety: bool | None = None
    retrieval: Literal["similarity", "random", "fixed", "none"] | None = None
    retrieval_k: int | None = Field(default=None, ge=0, le=16)
    exclude_exemplars: dict[str, str] | None = None
    memories: dict[str, str] | None = Field(default=None, max_length=64)
    cache: bool | None = None
    confidence: ConfidenceOption | None = None
    confidence_memory: MemoryOption | None = None

    def overrides(self) -> dict:
        """The options that were set, as engine settings overrides."""
        return self.model_dump(exclude_none=True)
