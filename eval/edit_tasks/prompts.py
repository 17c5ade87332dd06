"""The edit-instruction prompts (templates as data) and the answer schemas built per card.

Example:
    >>> schema = writing_schema(("add_object", "remove_object"))
    >>> schema.model_validate({"items": [
    ...     {"edit_type": "add_object", "instruction": "Add a kite to the sky."},
    ...     {"edit_type": "remove_object", "instruction": "Remove the bench."}]}).items[0].edit_type
    'add_object'
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path
from string import Template
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

TEMPLATES = Path(__file__).parent / "templates"


@lru_cache(maxsize=1)
def versions() -> dict[str, str]:
    """``stage -> stage@version``."""
    data = tomllib.loads((TEMPLATES / "edit_tasks.toml").read_text(encoding="utf-8"))
    return {name: f"{name}@{entry['version']}" for name, entry in data["stages"].items()}


def render(stage: str, **values: str) -> str:
    """A stage's instructions with its ``$placeholders`` filled (trusted text only)."""
    return Template((TEMPLATES / f"{stage}.md").read_text(encoding="utf-8")).substitute(
        values).strip()


@lru_cache(maxsize=64)
def category_schema(names: tuple[str, ...]) -> type[BaseModel]:
    """``{"category": one of names}``."""
    choice = Literal[names]  # type: ignore[valid-type]  # names known only at run time
    return create_model("ImageCategory", category=(choice, ...))


@lru_cache(maxsize=256)
def writing_schema(types: tuple[str, ...]) -> type[BaseModel]:
    """``{"items": [{"edit_type": one of types, "instruction": str}]}``, one per type."""
    choice = Literal[types]  # type: ignore[valid-type]  # types known only at run time
    item: Any = create_model(
        "EditInstruction",
        edit_type=(choice, ...),
        instruction=(str, Field(min_length=5, max_length=600)),
    )
    return create_model(
        "EditInstructions", items=(list[item], Field(min_length=1, max_length=4 * len(types)))
    )


class CheckAnswer(BaseModel):
    """Whether an instruction fits its edit type's definition."""

    matches: bool
    reason: str = Field(max_length=400)
