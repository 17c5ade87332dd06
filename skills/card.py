"""Skill cards: the data that defines a skill (docs/design.md#skills-and-cards).

A card names its kind (code), its modality, the task categories it applies to, its
rubric (for subjective skills), its prompt template file and its version. Bump the
version whenever the wording changes: results record the versions they used.

Example:
    >>> card = SkillCard.model_validate({
    ...     "name": "sharpness", "kind": "subjective-rubric", "version": "1.0.0",
    ...     "modality": "image", "categories": ["OE"], "template": "subjective.md",
    ...     "dimensions": [{"name": "sharpness", "title": "Sharpness", "definition": "d",
    ...                     "anchors": {"1": "a", "2": "b", "3": "c", "4": "d", "5": "e"}}]})
    >>> card.dimension_names
    ['sharpness']
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from skills.primitives import PRIMITIVES

Modality = str
"""What a card looks at: a view role such as ``prompt``, ``image`` or ``pair`` (open set)."""
CATEGORIES = ("OE", "CO", "IM")
CHECKLIST_SIDES = ("prompt", "image")
"""The sides a checklist card checks: the prompt (QA) or each image (VQA)."""
BUILTIN_DIR = Path(__file__).parent / "cards"
"""The folder of the cards shipped with the package."""
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def snake_case(what: str, rule: str = "snake_case") -> AfterValidator:
    """A field check refusing a value that is not snake_case: ``{what} 'x' must be {rule}``.

    Example:
        >>> from pydantic import TypeAdapter
        >>> TypeAdapter(Annotated[str, snake_case("card name")]).validate_python("my_card")
        'my_card'
    """

    def check(value: str) -> str:
        if not _NAME.match(value):
            raise ValueError(f"{what} {value!r} must be {rule}")
        return value

    return AfterValidator(check)


def known(what: str, allowed: tuple[str, ...]) -> AfterValidator:
    """A field check refusing a list with names outside ``allowed``, listing them.

    Example:
        >>> from pydantic import TypeAdapter
        >>> TypeAdapter(Annotated[list[str], known("categories", CATEGORIES)]).validate_python(
        ...     ["OE"])
        ['OE']
    """

    def check(values: list[str]) -> list[str]:
        bad = [v for v in values if v not in allowed]
        if bad:
            raise ValueError(f"unknown {what} {bad}; use {list(allowed)}")
        return values

    return AfterValidator(check)


class Dimension(BaseModel):
    """One subjective dimension with its definition and 1–5 anchors."""

    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, snake_case("dimension name")]
    title: str
    definition: str
    anchors: dict[int, str]
    look_for: list[str] = Field(default_factory=list)

    @field_validator("anchors")
    @classmethod
    def _all_levels(cls, v: dict[int, str]) -> dict[int, str]:
        if sorted(v) != [1, 2, 3, 4, 5]:
            raise ValueError(f"anchors must define levels 1..5 exactly, got {sorted(v)}")
        return v


class SkillCard(BaseModel):
    """A skill as data."""

    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, snake_case("card name")]
    kind: str
    version: str
    description: str = ""
    modality: Annotated[
        Modality, snake_case("modality", "a snake_case view name (prompt, image, …)")
    ]
    categories: Annotated[list[str], known("categories", CATEGORIES)] = Field(
        default_factory=lambda: list(CATEGORIES)
    )
    template: str
    batch_template: str | None = None
    dimensions: list[Dimension] = Field(default_factory=list)
    memory: str | None = None
    safety_categories: list[str] = Field(default_factory=list)
    enabled: bool = True
    source: str | None = None
    members: list[str] = Field(
        default_factory=list, description="for a combined card: the cards it merges"
    )
    question: str = Field(
        default="", description="for pairwise cards: the question asked about the two images"
    )
    show_prompt: bool = Field(
        default=True, description="whether the judge sees the prompt (pairwise cards)"
    )
    primitives: Annotated[list[str], known("primitives", PRIMITIVES)] = Field(
        default_factory=list,
        description="for checklist cards: the checkpoint primitives this card serves on its "
        "side (empty: every primitive no other card claims)",
    )

    @model_validator(mode="after")
    def _kind_fields(self) -> SkillCard:
        checklist = self.kind == "objective-checklist"
        if self.primitives and not checklist:
            raise ValueError(
                f"card {self.name!r}: only objective-checklist cards route by primitives; "
                f"remove 'primitives' from this {self.kind} card"
            )
        if checklist and self.modality not in CHECKLIST_SIDES:
            raise ValueError(
                f"card {self.name!r}: a checklist card checks one side, "
                f"modality must be one of {list(CHECKLIST_SIDES)}, not {self.modality!r}"
            )
        if self.kind in ("subjective-rubric", "edit-rubric") and not self.dimensions:
            raise ValueError(f"card {self.name!r}: a {self.kind} card needs dimensions")
        if self.kind == "safety" and not self.safety_categories:
            raise ValueError(f"card {self.name!r}: a safety card needs safety_categories")
        if self.kind == "pairwise-preference" and not self.question.strip():
            raise ValueError(f"card {self.name!r}: a pairwise-preference card needs a question")
        return self

    @property
    def builtin(self) -> bool:
        """Whether the card ships with the package (its file is under ``skills/cards``)."""
        return self.source is not None and Path(self.source).resolve().is_relative_to(
            BUILTIN_DIR.resolve()
        )

    @property
    def dimension_names(self) -> list[str]:
        """The names of the dimensions this card scores."""
        return [d.name for d in self.dimensions]

    @property
    def tag(self) -> str:
        """``name@version``: what results record and the model cache keys on."""
        return f"{self.name}@{self.version}"

    def memory_for(self, category: str, bound: Mapping[str, str] | None = None) -> str | None:
        """The memory name for a task category (cards may write ``prompt-{category}``).

        ``bound`` (the ``memories`` setting) names a memory to read instead, keyed by this
        card's name, one of the cards it merges, or one of its dimensions.

        Example:
            >>> from skills.registry import default_registry
            >>> card = default_registry().card("color_lighting")
            >>> card.memory_for("OE"), card.memory_for("OE", {"color_lighting": "mine"})
            ('image-OE', 'mine')
        """
        for key in (self.name, *self.members, *self.dimension_names):
            if bound and key in bound:
                return bound[key]
        return self.memory.format(category=category) if self.memory else None

    @classmethod
    def from_file(cls, path: Path) -> SkillCard:
        """Load and validate a TOML card; errors name the file."""
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"skill card {path}: not valid TOML: {exc}") from exc
        data.setdefault("source", str(path))
        try:
            return cls.model_validate(data)
        except ValueError as exc:
            raise ValueError(f"skill card {path}: {exc}") from exc
