"""Prompter conditions as cards: ``eval/studies/conditions/<name>.toml``.

A card holds the system instruction an MLLM prompter gets (``system``), a note added when the
task carries a target image (``image_note``), whether the reply has a ``working_notes`` field
before the prompt, a ``description`` and a ``version`` (bump it when the wording changes).

Example:
    >>> card = load_condition("novice")
    >>> card.name, card.working_notes
    ('novice', False)
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

CONDITION_DIR = Path(__file__).resolve().parents[1] / "conditions"


class ConditionCard(BaseModel):
    """One prompter condition (novice, skilled, or your own)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    version: str
    description: str
    system: str = Field(min_length=1)
    image_note: str = ""
    working_notes: bool = False

    @property
    def ref(self) -> str:
        """``name@version``, as recorded with results."""
        return f"{self.name}@{self.version}"


def available_conditions() -> list[str]:
    """Names of the shipped condition cards."""
    return sorted(p.stem for p in CONDITION_DIR.glob("*.toml"))


@lru_cache(maxsize=32)
def load_condition(name: str) -> ConditionCard:
    """The card called ``name``; an unknown name lists the available ones."""
    path = CONDITION_DIR / f"{name}.toml"
    if not path.is_file():
        raise KeyError(
            f"unknown condition {name!r}; available: {', '.join(available_conditions())}"
        )
    with path.open("rb") as fh:
        card = ConditionCard.model_validate(tomllib.load(fh))
    if card.name != name:
        raise ValueError(f"{path}: name {card.name!r} does not match the file name")
    return card
