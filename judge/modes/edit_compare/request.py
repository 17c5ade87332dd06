"""The edit comparison request: a source image, the instruction and two edits of it.

Example:
    >>> c = EditComparison.model_validate({"instruction": "Make the car blue.",
    ...     "source_image": "src.png", "a": {"image": "x.png", "model": "editor-x"},
    ...     "b": {"image": "y.png"}})
    >>> c.criteria, c.a.model, len(c.comparison_id)
    (['instruction_following', 'image_consistency', 'visual_quality'], 'editor-x', 16)
"""

from __future__ import annotations

from pydantic import Field

from judge.modes.compare.request import Contender, PairRequest, criteria_field, group_field
from judge.modes.edit.request import MAX_INSTRUCTION_CHARS

EDIT_CRITERIA = ["instruction_following", "image_consistency", "visual_quality"]


class EditComparison(PairRequest):
    """Two edits (``a``, ``b``) of ``source_image`` made for one ``instruction``."""

    instruction: str = Field(min_length=1, max_length=MAX_INSTRUCTION_CHARS)
    source_image: str = Field(min_length=1, max_length=64 * 1024 * 1024)
    a: Contender
    b: Contender
    criteria: list[str] = criteria_field(EDIT_CRITERIA)
    prompt_id: str | None = group_field("task")
