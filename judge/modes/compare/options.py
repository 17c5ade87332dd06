"""Per-request options of the ``compare`` mode that a service client may set.

Example:
    >>> CompareOptions(allow_tie=True).overrides()
    {'compare_allow_tie': True}
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from judge.confidence.spec import ConfidenceOption, MemoryOption


class CompareOptions(BaseModel):
    """Options a client may set on a comparison (never paths, keys or endpoints)."""

    model_config = ConfigDict(extra="forbid")

    backend: Literal["auto", "llm", "local"] | None = None
    allow_tie: bool | None = None
    speculative_safety: bool | None = None
    cache: bool | None = None
    confidence: ConfidenceOption | None = None
    confidence_memory: MemoryOption | None = None

    def overrides(self) -> dict:
        """The options that were set, as engine settings overrides."""
        data = self.model_dump(exclude_none=True)
        if "allow_tie" in data:
            data["compare_allow_tie"] = data.pop("allow_tie")
        return data
