"""Image categories and their edit types, as data cards (one TOML file per category).

The packaged cards live in ``data/categories/``; the 21 edit-type families they share, with
their definitions, in ``data/families.toml``. A category card names its families and one
creative type of its own (``[creative]``) and may add more types (``[types.<name>]`` with a
``definition``). A user's folder (``--types DIR``) adds categories, or replaces a packaged
category of the same name.

Example:
    >>> cats = load_categories()
    >>> len(cats), len(families())
    (7, 21)
    >>> cats["people"].types["age_change"][:25]
    'Make a person look clearl'
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

DATA = Path(__file__).parent / "data"


class CardError(ValueError):
    """A category card that cannot be used; the message names the file and problem."""


class Creative(BaseModel):
    """The category's own creative edit type."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_]{1,40}$")
    definition: str = Field(min_length=10, max_length=400)


class CategoryCard(BaseModel):
    """One image category: what it covers and which edit types apply."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_]{1,40}$")
    version: str
    description: str = Field(min_length=10, max_length=400)
    families: list[str] = Field(default_factory=list)
    creative: Creative
    extra_types: dict[str, dict[str, str]] = Field(default_factory=dict, alias="types")

    @property
    def tag(self) -> str:
        """``name@version``."""
        return f"{self.name}@{self.version}"

    @property
    def types(self) -> dict[str, str]:
        """Every edit type of the category with its definition."""
        fams = families()
        out = {f: fams[f] for f in self.families}
        out.update({k: v["definition"] for k, v in self.extra_types.items()})
        out[self.creative.name] = self.creative.definition
        return out


@lru_cache(maxsize=1)
def families() -> dict[str, str]:
    """The shared edit-type families and their definitions."""
    data = tomllib.loads((DATA / "families.toml").read_text(encoding="utf-8"))
    return {name: entry["definition"] for name, entry in data.items()}


def _card(path: Path) -> CategoryCard:
    try:
        card = CategoryCard.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CardError(f"{path}: cannot read the card ({exc})") from None
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        raise CardError(f"{path}: {loc}: {err['msg']}") from None
    unknown = [f for f in card.families if f not in families()]
    if unknown:
        raise CardError(f"{path}: families: unknown {unknown}; known: {sorted(families())}")
    for name, entry in card.extra_types.items():
        if not isinstance(entry.get("definition"), str) or len(entry["definition"]) < 10:
            raise CardError(f"{path}: types.{name}: needs a definition (a sentence)")
    if not card.types:
        raise CardError(f"{path}: the category has no edit type")
    return card


def load_categories(user_dir: Path | None = None) -> dict[str, CategoryCard]:
    """The packaged categories, plus (or replaced by) the cards in ``user_dir``."""
    cards = {c.name: c for c in map(_card, sorted((DATA / "categories").glob("*.toml")))}
    if user_dir is not None:
        if not Path(user_dir).is_dir():
            raise CardError(f"--types {user_dir}: not a folder of category cards (*.toml)")
        found = sorted(Path(user_dir).glob("*.toml"))
        if not found:
            raise CardError(f"--types {user_dir}: holds no *.toml card")
        cards.update({c.name: c for c in map(_card, found)})
    return cards
