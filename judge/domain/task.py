"""Tasks and their checklists.

Example:
    >>> t = Task.model_validate({"id": "co_1", "category": "CO", "brief": "A red cube.",
    ...     "checklist": [{"id": "c1", "primitive": "attribute_binding",
    ...                    "image_check": "The cube is red."}]})
    >>> t.checklist[0].prompt_check is None
    True

A checkpoint may name a ``parent`` (another checkpoint of the same task): the child only makes
sense when the parent holds ("the cat is black" needs "there is a cat"), so a child counts as
failed when its parent failed (:func:`judge.domain.dependencies.apply_dependencies`).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from judge.domain.dependencies import dependency_problem

MAX_BRIEF_CHARS = 20_000
MAX_CHECK_CHARS = 2_000
MAX_CHECKPOINTS = 64


class Category(StrEnum):
    """Task categories of the reference design: open-ended, constrained, imitation."""

    OE = "OE"
    CO = "CO"
    IM = "IM"


class Primitive(StrEnum):
    """Challenge primitives a checkpoint can exercise."""

    abstract_intent = "abstract_intent"
    audience_intent = "audience_intent"
    implicit_style = "implicit_style"
    semantic_negation = "semantic_negation"
    attribute_binding = "attribute_binding"
    spatial_relation = "spatial_relation"
    quantity = "quantity"
    text = "text"
    hard_constraint = "hard_constraint"


def _id_may_be_left_out(schema: dict[str, Any]) -> None:
    """The schema's ``id`` is optional: a task's checklist gives a missing one ``c<n>``."""
    schema["required"] = [name for name in schema.get("required", []) if name != "id"]


class Checkpoint(BaseModel):
    """One constraint, checked in the prompt (QA) and/or in the image (VQA)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_id_may_be_left_out)

    id: str = Field(
        min_length=1,
        max_length=64,
        description="Unique within the checklist; when left out, the item's 1-based position "
        "in the checklist as c<n> (c1, c2, ...).",
    )
    primitive: Primitive
    prompt_check: str | None = Field(default=None, max_length=MAX_CHECK_CHARS)
    image_check: str | None = Field(default=None, max_length=MAX_CHECK_CHARS)
    parent: str | None = Field(default=None, min_length=1, max_length=64)

    @model_validator(mode="after")
    def _has_a_check(self) -> Checkpoint:
        if not (self.prompt_check or self.image_check):
            raise ValueError(f"checkpoint {self.id!r} needs a prompt_check, an image_check or both")
        return self


class Task(BaseModel):
    """A task brief with its category, optional target image and checklist."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=128)
    category: Category
    brief: str = Field(max_length=MAX_BRIEF_CHARS)
    target_image: str | None = None
    checklist: list[Checkpoint] = Field(default_factory=list, max_length=MAX_CHECKPOINTS)

    @field_validator("checklist", mode="before")
    @classmethod
    def _default_ids(cls, value: Any) -> Any:
        """A checkpoint without an ``id`` gets ``c<n>`` (its 1-based position), as
        ``judge.score``'s checklist does: the service and Python take the same checklists."""
        if not isinstance(value, list):
            return value
        return [
            {"id": f"c{n}", **cp} if isinstance(cp, dict) and "id" not in cp else cp
            for n, cp in enumerate(value, start=1)
        ]

    @field_validator("checklist")
    @classmethod
    def _unique_ids(cls, value: list[Checkpoint]) -> list[Checkpoint]:
        seen: set[str] = set()
        for cp in value:
            if cp.id in seen:
                raise ValueError(f"checkpoint id {cp.id!r} appears more than once")
            seen.add(cp.id)
        problem = dependency_problem({cp.id: cp.parent for cp in value})
        if problem:
            raise ValueError(problem)
        return value
