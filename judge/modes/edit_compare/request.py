"""The edit comparison request: a source image, the instruction and two edits of it.

Example:
    >>> c = EditComparison.model_validate({"instruction": "Make the car blue.",
    ...     "source_image": "src.png", "a": {"image": "x.png", "model": "editor-x"},
    ...     "b": {"image": "y.png"}})
    >>> c.criteria, c.a.model, len(c.comparison_id)
    (['instruction_following', 'image_consistency', 'visual_quality'], 'editor-x', 16)
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from judge.json_digest import content_fingerprint
from judge.modes.compare.request import MAX_CRITERIA, Contender
from judge.modes.edit.request import MAX_INSTRUCTION_CHARS

EDIT_CRITERIA = ["instruction_following", "image_consistency", "visual_quality"]


class EditComparison(BaseModel):
    """Two edits (``a``, ``b``) of ``source_image`` made for one ``instruction``."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(default=None, max_length=128)
    instruction: str = Field(min_length=1, max_length=MAX_INSTRUCTION_CHARS)
    source_image: str = Field(min_length=1, max_length=64 * 1024 * 1024)
    a: Contender
    b: Contender
    criteria: list[str] = Field(
        default_factory=lambda: list(EDIT_CRITERIA), min_length=1, max_length=MAX_CRITERIA
    )
    prompt_id: str | None = Field(
        default=None, max_length=128, description="groups comparisons of one task (votes)"
    )

    @property
    def comparison_id(self) -> str:
        """The caller's id, else a fingerprint of the content."""
        if self.id:
            return self.id
        return content_fingerprint(self.model_dump(mode="json"))
