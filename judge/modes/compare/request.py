"""The comparison request (docs/design.md#comparison): a prompt and two labelled images.

Example:
    >>> c = Comparison.model_validate({"prompt": "a red fox", "a": {"image": "a.png"},
    ...                                "b": {"image": "b.png", "model": "sd3"}})
    >>> c.criteria, c.b.model, len(c.comparison_id)
    (['preference', 'coherence', 'alignment'], 'sd3', 16)
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from judge.domain.identified import IdentifiedRequest
from judge.domain.submission import MAX_PROMPT_CHARS

DEFAULT_CRITERIA = ["preference", "coherence", "alignment"]
MAX_CRITERIA = 16


class Contender(BaseModel):
    """One side of a comparison: an image reference and, optionally, the model behind it."""

    model_config = ConfigDict(extra="forbid")

    image: str = Field(min_length=1, max_length=64 * 1024 * 1024)
    model: str | None = Field(default=None, max_length=128)


def criteria_field(defaults: list[str]) -> Any:
    """The ``criteria`` field of a pairwise request: 1 to ``MAX_CRITERIA`` names, ``defaults``
    when left out."""
    return Field(default_factory=lambda: list(defaults), min_length=1, max_length=MAX_CRITERIA)


def group_field(of: str) -> Any:
    """The optional ``prompt_id`` field of a pairwise request, grouping the comparisons of one
    ``of`` (a prompt, a task) for votes."""
    return Field(
        default=None, max_length=128, description=f"groups comparisons of one {of} (votes)"
    )


class PairRequest(IdentifiedRequest):
    """What every pairwise request shares: no unknown fields, the caller's optional ``id``
    (the first field) and :attr:`comparison_id`."""

    @property
    def comparison_id(self) -> str:
        """The caller's id, else a fingerprint of the content."""
        return self.content_id()


class Comparison(PairRequest):
    """Two images of one prompt, judged criterion by criterion."""

    prompt: str = Field(max_length=MAX_PROMPT_CHARS)
    brief: str | None = Field(default=None, max_length=MAX_PROMPT_CHARS)
    a: Contender
    b: Contender
    criteria: list[str] = criteria_field(DEFAULT_CRITERIA)
    prompt_id: str | None = group_field("prompt")
