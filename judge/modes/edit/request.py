"""The edit submission: a source image, an instruction, the edited image(s)
(docs/design.md#edit-submission-and-result).

Example:
    >>> e = EditSubmission.model_validate({"instruction": "Make the car blue.",
    ...     "source_image": "src.png", "images": ["out.png"], "editor": "model-x"})
    >>> e.editor, len(e.submission_id)
    ('model-x', 16)
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from judge.domain.submission import MAX_IMAGES
from judge.json_digest import content_fingerprint

MAX_INSTRUCTION_CHARS = 4000


class EditSubmission(BaseModel):
    """One edit to judge: best-of-n over ``images``."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(default=None, max_length=128)
    instruction: str = Field(min_length=1, max_length=MAX_INSTRUCTION_CHARS)
    source_image: str = Field(min_length=1)
    images: list[str] = Field(min_length=1, max_length=MAX_IMAGES)
    editor: str | None = Field(default=None, max_length=128)

    @property
    def submission_id(self) -> str:
        """The caller's id, else a fingerprint of the content."""
        if self.id:
            return self.id
        return content_fingerprint(self.model_dump(mode="json"))
