"""The skill registry: every card found in the card folders, bound lazily to its kind.

Cards live in ``skills/cards/**.toml``; more folders come from installed plugins (an entry
point in ``t2i_judge.skill_cards`` naming a folder: a ``Path`` or a string), the
``JUDGE_SKILL_DIRS`` environment variable (``os.pathsep``-separated) or ``extra_dirs``.

Example:
    >>> reg = default_registry()
    >>> [c.name for c in reg.cards(kind="safety")]
    ['image_safety', 'prompt_safety']
    >>> reg.card("mood_atmosphere").modality
    'image'
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from registry import Registry, UnknownName
from skills.card import BUILTIN_DIR, SkillCard
from skills.kinds import Skill, build_skill
from skills.routing import all_checklist_routes
from skills.settings import SkillSettings

CARD_DIR = BUILTIN_DIR
CARD_DIRS = Registry[Path | str]("card folder", group="t2i_judge.skill_cards")
"""Folders of cards by name: the built-in one, and those plugins ship."""
CARD_DIRS.add("built-in", CARD_DIR)


class SkillRegistry:
    """Cards by name, with helpful errors for unknown names, duplicate definitions and two
    checklist cards claiming the same checkpoints (see :mod:`skills.routing`)."""

    def __init__(self, cards: Iterable[SkillCard]):
        self._cards: dict[str, SkillCard] = {}
        self._skills: dict[tuple[str, str], Skill] = {}
        self._combined: dict[str, SkillCard] = {}
        for card in cards:
            if card.name in self._cards:
                raise ValueError(
                    f"skill card {card.name!r} defined twice: "
                    f"{self._cards[card.name].source} and {card.source}"
                )
            self._cards[card.name] = card
        self._routes = all_checklist_routes(self._cards.values())

    @classmethod
    def from_dirs(cls, dirs: Iterable[Path]) -> SkillRegistry:
        """Load every ``*.toml`` card below each folder."""
        cards: list[SkillCard] = []
        for d in dirs:
            if not Path(d).is_dir():
                raise FileNotFoundError(f"skill card folder {d} does not exist")
            cards += [SkillCard.from_file(p) for p in sorted(Path(d).rglob("*.toml"))]
        return cls(cards)

    def names(self) -> list[str]:
        """All card names, sorted."""
        return sorted(self._cards)

    def combine(self, names: list[str]) -> str:
        """Register (once) a card that scores the dimensions of several subjective cards of
        one modality in a single call, and return its name.

        Example:
            >>> reg = default_registry()
            >>> name = reg.combine(["color_lighting", "mood_atmosphere"])
            >>> reg.card(name).dimension_names, reg.card(name).members
            (['color_lighting', 'mood_atmosphere'], ['color_lighting', 'mood_atmosphere'])
        """
        cards = [self.card(n) for n in sorted(names)]
        if len(cards) == 1:
            return cards[0].name
        name = "combined__" + "__".join(c.name for c in cards)
        if name not in self._combined:
            if len({(c.kind, c.modality, c.memory, c.template) for c in cards}) != 1:
                raise ValueError(f"cards {names} differ in kind, modality, memory or template")
            first = cards[0]
            self._combined[name] = SkillCard(
                name=name,
                kind=first.kind,
                modality=first.modality,
                template=first.template,
                version="+".join(f"{c.name}@{c.version}" for c in cards),
                categories=sorted(set.intersection(*(set(c.categories) for c in cards))),
                dimensions=[d for c in cards for d in c.dimensions],
                memory=first.memory,
                members=[c.name for c in cards],
                description="combined: " + ", ".join(c.name for c in cards),
            )
        return name

    def card(self, name: str) -> SkillCard:
        """The card called ``name``; unknown names get suggestions."""
        if name in self._combined:
            return self._combined[name]
        try:
            return self._cards[name]
        except KeyError:
            raise UnknownName("skill", name, self.names()) from None

    def skill(self, name: str, backend: str = "llm") -> Skill:
        """The card bound to its kind's code for ``backend`` (built once)."""
        key = (name, backend)
        if key not in self._skills:
            self._skills[key] = build_skill(self.card(name), backend)
        return self._skills[key]

    def group_of(self, name: str) -> str:
        """The folder a card lives in (``subjective``, ``avt``, …): its group."""
        src = self.card(name).source
        return Path(src).parent.name if src else ""

    def expand(self, selection: Iterable[str]) -> list[str]:
        """Card names from a selection of names and aliases: ``@default`` (the enabled
        subjective cards) and ``@<group>`` (every card of a folder, e.g. ``@avt``).

        Example:
            >>> default_registry().expand(["@avt", "mood_atmosphere"])[:2]
            ['avt_appeal', 'avt_prompt_matching']
        """
        out: list[str] = []
        for item in selection:
            if item == "@default":
                names = [c.name for c in self.cards(kind="subjective-rubric")]
            elif item.startswith("@"):
                names = [n for n in self.names() if self.group_of(n) == item[1:]]
                if not names:
                    groups = sorted(  # only groups --skills accepts: subjective cards
                        {
                            self.group_of(c.name)
                            for c in self.cards(kind="subjective-rubric", enabled_only=False)
                        }
                    )
                    raise KeyError(
                        f"unknown skill group {item!r}; groups: "
                        f"{['@default', *('@' + g for g in groups)]}"
                    )
            else:
                names = [self.card(item).name]
            out += [n for n in names if n not in out]
        return out

    def checklist_card(self, side: str, primitive: str, category: str) -> str | None:
        """The checklist card that checks ``primitive`` checkpoints on ``side`` (``prompt``
        or ``image``) for ``category`` tasks; None when no card does.

        Example:
            >>> default_registry().checklist_card("image", "quantity", "CO")
            'image_check'
        """
        return self._routes.get((side, category), {}).get(primitive)

    def cards(
        self,
        *,
        kind: str | None = None,
        modality: str | None = None,
        category: str | None = None,
        enabled_only: bool = True,
    ) -> list[SkillCard]:
        """Cards filtered by kind, modality and task category, sorted by name."""
        out = []
        for name in self.names():
            c = self._cards[name]
            if enabled_only and not c.enabled:
                continue
            if kind and c.kind != kind:
                continue
            if modality and c.modality != modality:
                continue
            if category and category not in c.categories:
                continue
            out.append(c)
        return out


def _env_dirs() -> tuple[Path, ...]:
    raw = SkillSettings().skill_dirs
    return tuple(Path(p) for p in raw.split(os.pathsep) if p)


@cache
def _cached(dirs: tuple[Path, ...]) -> SkillRegistry:
    return SkillRegistry.from_dirs(dirs)


def default_registry(extra_dirs: Iterable[Path] = ()) -> SkillRegistry:
    """The built-in cards, plugins' cards, plus any extra folders (loaded once per folder
    set)."""
    plugins = tuple(Path(folder) for _, folder in CARD_DIRS.items())
    return _cached((*plugins, *_env_dirs(), *map(Path, extra_dirs)))
