"""Per-request options of the ``edit`` mode that a service client may set.

Example:
    >>> EditOptions(samples=5, success_threshold=3.5).overrides()
    {'edit_samples': 5, 'edit_success_threshold': 3.5}
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from judge.confidence.spec import ConfidenceOption, MemoryOption

RENAMES = {"samples": "edit_samples", "success_threshold": "edit_success_threshold"}


class EditOptions(BaseModel):
    """Options a client may set on an edit (never paths, keys or endpoints)."""

    model_config = ConfigDict(extra="forbid")

    backend: Literal["auto", "llm", "local"] | None = None
    samples: int | None = Field(default=None, ge=1, le=10)
    success_threshold: float | None = Field(default=None, ge=1, le=5)
    speculative_safety: bool | None = None
    cache: bool | None = None
    confidence: ConfidenceOption | None = None
    confidence_memory: MemoryOption | None = None

    def overrides(self) -> dict:
        """The options that were set, as engine settings overrides."""
        return {RENAMES.get(k, k): v for k, v in self.model_dump(exclude_none=True).items()}
