"""The comparison request (docs/design.md#comparison): a prompt and two labelled images.

Example:
    >>> c = Comparison.model_validate({"prompt": "a red fox", "a": {"image": "a.png"},
    ...                                "b": {"image": "b.png", "model": "sd3"}})
    >>> c.criteria, c.b.model, len(c.comparison_id)
    (['preference', 'coherence', 'alignment'], 'sd3', 16)
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from judge.domain.submission import MAX_PROMPT_CHARS
from judge.json_digest import content_fingerprint

DEFAULT_CRITERIA = ["preference", "coherence", "alignment"]
MAX_CRITERIA = 16


class Contender(BaseModel):
    """One side of a comparison: an image reference and, optionally, the model behind it."""

    model_config = ConfigDict(extra="forbid")

    image: str = Field(min_length=1, max_length=64 * 1024 * 1024)
    model: str | None = Field(default=None, max_length=128)


class Comparison(BaseModel):
    """Two images of one prompt, judged criterion by criterion."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(default=None, max_length=128)
    prompt: str = Field(max_length=MAX_PROMPT_CHARS)
    brief: str | None = Field(default=None, max_length=MAX_PROMPT_CHARS)
    a: Contender
    b: Contender
    criteria: list[str] = Field(
        default_factory=lambda: list(DEFAULT_CRITERIA), min_length=1, max_length=MAX_CRITERIA
    )
    prompt_id: str | None = Field(
        default=None, max_length=128, description="groups comparisons of one prompt (votes)"
    )

    @property
    def comparison_id(self) -> str:
        """The caller's id, else a fingerprint of the content."""
        if self.id:
            return self.id
        return content_fingerprint(self.model_dump(mode="json"))
