"""A submission: a task, the prompt written for it and the images generated from that prompt.

Example:
    >>> s = Submission.model_validate({"task": {"id": "oe_1", "category": "OE", "brief": "x"},
    ...                                "prompt": "a calm lake at dawn", "images": []})
    >>> s.task.category.value, s.images
    ('OE', [])
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from judge.domain.task import Task
from judge.json_digest import content_fingerprint

MAX_PROMPT_CHARS = 20_000
MAX_IMAGES = 8


class Prompter(BaseModel):
    """Who wrote the prompt: a person or a multimodal model."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(default="unknown", max_length=128)
    kind: Literal["human", "mllm"] = "human"


class Submission(BaseModel):
    """The unit the judge scores (docs/design.md#submission-and-result-mode-score)."""

    model_config = ConfigDict(extra="forbid")

    task: Task
    prompt: str = Field(max_length=MAX_PROMPT_CHARS)
    images: list[str] = Field(default_factory=list, max_length=MAX_IMAGES)
    prompter: Prompter = Field(default_factory=Prompter)
    backend: str | None = Field(default=None, max_length=128)
    id: str | None = Field(default=None, max_length=128)

    def fingerprint(self) -> str:
        """A stable id derived from the content, used when the submission carries none."""
        return content_fingerprint(self.model_dump(mode="json"))

    @property
    def submission_id(self) -> str:
        """The caller's id when given, else the content fingerprint."""
        return self.id or self.fingerprint()
