"""Skill kinds: code that turns a card into an async skill.

Kinds register themselves with :func:`register_kind`; :func:`build_skill` imports the
kind's module lazily and fails helpfully on an unknown kind.

Example:
    >>> sorted(available_kinds())
    ['objective-checklist', 'safety', 'subjective-rubric']
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from skills.card import SkillCard
from skills.types import ModelClient, SkillInput, SkillOutput

SkillFn = Callable[[SkillInput, ModelClient], Awaitable[SkillOutput]]
Factory = Callable[[SkillCard], SkillFn]

_MODULES = {
    "subjective-rubric": "skills.kinds.subjective",
    "objective-checklist": "skills.kinds.objective",
    "safety": "skills.kinds.safety",
}
_FACTORIES: dict[str, Factory] = {}


@dataclass(frozen=True)
class Skill:
    """A card bound to its kind's code; call it with an input and a model client."""

    card: SkillCard
    fn: SkillFn

    @property
    def tag(self) -> str:
        """``name@version``: what results record and the cache keys on."""
        return f"{self.card.name}@{self.card.version}"

    async def __call__(self, inp: SkillInput, client: ModelClient) -> SkillOutput:
        return await self.fn(inp, client)


def register_kind(name: str, module: str | None = None) -> Callable[[Factory], Factory]:
    """Decorator registering a factory ``card -> async skill`` under ``name``."""

    def deco(factory: Factory) -> Factory:
        _FACTORIES[name] = factory
        if module:
            _MODULES[name] = module
        return factory

    return deco


def available_kinds() -> list[str]:
    """Every kind name the registry knows (imported or not)."""
    return sorted(set(_MODULES) | set(_FACTORIES))


def build_skill(card: SkillCard) -> Skill:
    """Bind ``card`` to the code of its kind."""
    if card.kind not in _FACTORIES and card.kind in _MODULES:
        importlib.import_module(_MODULES[card.kind])
    factory = _FACTORIES.get(card.kind)
    if factory is None:
        close = difflib.get_close_matches(card.kind, available_kinds(), n=1)
        hint = f"; did you mean {close[0]!r}" if close else ""
        raise KeyError(
            f"card {card.name!r} has unknown kind {card.kind!r}{hint}; "
            f"available: {available_kinds()}"
        )
    return Skill(card=card, fn=factory(card))
