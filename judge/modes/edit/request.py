"""The edit submission: a source image, an instruction, the edited image(s)
(docs/design.md#edit-submission-and-result).

Example:
    >>> e = EditSubmission.model_validate({"instruction": "Make the car blue.",
    ...     "source_image": "src.png", "images": ["out.png"], "editor": "model-x"})
    >>> e.editor, len(e.submission_id)
    ('model-x', 16)
"""

from __future__ import annotations

from pydantic import Field

from judge.domain.identified import IdentifiedRequest
from judge.domain.submission import MAX_IMAGES

MAX_INSTRUCTION_CHARS = 4000


class EditSubmission(IdentifiedRequest):
    """One edit to judge: best-of-n over ``images``."""

    instruction: str = Field(min_length=1, max_length=MAX_INSTRUCTION_CHARS)
    source_image: str = Field(min_length=1)
    images: list[str] = Field(min_length=1, max_length=MAX_IMAGES)
    editor: str | None = Field(default=None, max_length=128)

    @property
    def submission_id(self) -> str:
        """The caller's id, else a fingerprint of the content."""
        return self.content_id()
