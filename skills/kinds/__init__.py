"""Skill kinds: code that turns a card into an async skill, per backend.

Each kind has an implementation per backend: ``llm`` (a judge model through the gateway)
and ``local`` (packaged local models and exemplar memories, no network). A kind is a module
of ``skills/kinds/`` (``llm``) or ``skills/local/`` (``local``) with a function decorated by
:func:`register_kind`; nothing else lists it. The registry finds those modules by reading
their source (:mod:`skills.kinds.discovery`), and :func:`build_skill` imports a kind's module
only when a card of that kind is built, failing helpfully on an unknown kind or backend.

Example:
    >>> sorted(available_kinds())[:4]
    ['edit-pairwise', 'edit-rubric', 'objective-checklist', 'pairwise-preference']
    >>> sorted(available_kinds())[4:]
    ['safety', 'shift-metrics', 'subjective-rubric']
    >>> available_backends()
    ['llm', 'local']
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from skills.card import SkillCard
from skills.kinds.discovery import discover_kinds
from skills.types import ModelClient, SkillInput, SkillOutput

SkillFn = Callable[[SkillInput, ModelClient], Awaitable[SkillOutput]]
Factory = Callable[[SkillCard], SkillFn]

_MODULES: dict[tuple[str, str], str] = {}
"""Kinds registered with an explicit ``module`` (outside the kind packages)."""
_FACTORIES: dict[tuple[str, str], Factory] = {}


@dataclass(frozen=True)
class Skill:
    """A card bound to its kind's code; call it with an input and a model client."""

    card: SkillCard
    fn: SkillFn
    backend: str = "llm"

    @property
    def tag(self) -> str:
        """``name@version``: what results record and the cache keys on."""
        return self.card.tag

    async def __call__(self, inp: SkillInput, client: ModelClient) -> SkillOutput:
        return await self.fn(inp, client)


def register_kind(
    name: str, backend: str = "llm", module: str | None = None
) -> Callable[[Factory], Factory]:
    """Decorator registering a factory ``card -> async skill`` for ``(name, backend)``.

    In a module of ``skills/kinds/`` or ``skills/local/``, write the names as plain strings:
    the registry reads them from the source to know the kind before importing it. Elsewhere,
    pass ``module`` (the decorated function's module) so the kind is listed before its module
    is imported; in both cases nothing else needs to name the kind.

    Example (``skills/kinds/echo.py``; ``skills/local/echo.py`` with ``backend="local"``)::

        @register_kind("echo")
        def echo(card: SkillCard) -> SkillFn:
            async def run(inp: SkillInput, client: ModelClient) -> SkillOutput:
                return SkillOutput()
            return run
    """

    def deco(factory: Factory) -> Factory:
        _FACTORIES[(name, backend)] = factory
        if module:
            _MODULES[(name, backend)] = module
        return factory

    return deco


def _modules() -> dict[tuple[str, str], str]:
    """``(kind, backend) -> module``: the discovered kinds and the explicitly placed ones."""
    return {**discover_kinds(), **_MODULES}


def available_kinds() -> list[str]:
    """Every kind name the registry knows (imported or not)."""
    return sorted({k for k, _ in (*_modules(), *_FACTORIES)})


def available_backends() -> list[str]:
    """Every backend some kind is implemented for."""
    return sorted({b for _, b in (*_modules(), *_FACTORIES)})


def build_skill(card: SkillCard, backend: str = "llm") -> Skill:
    """Bind ``card`` to the code of its kind for ``backend``: every kind's factory is
    reached through here (or :meth:`skills.registry.Registry.skill`, which calls it).

    Example:
        >>> from skills.registry import default_registry
        >>> skill = build_skill(default_registry().card("visual_quality"), "local")
        >>> skill.tag, skill.card.kind, skill.backend
        ('visual_quality@1.0.0', 'edit-rubric', 'local')
    """
    key = (card.kind, backend)
    modules = _modules()
    if key not in _FACTORIES and key in modules:
        importlib.import_module(modules[key])
    factory = _FACTORIES.get(key)
    if factory is None:
        if card.kind not in available_kinds():
            close = difflib.get_close_matches(card.kind, available_kinds(), n=1)
            hint = f"; did you mean {close[0]!r}" if close else ""
            raise KeyError(
                f"card {card.name!r} has unknown kind {card.kind!r}{hint}; "
                f"available: {available_kinds()}"
            )
        raise KeyError(
            f"kind {card.kind!r} has no {backend!r} implementation; "
            f"backends: {available_backends()}"
        )
    return Skill(card=card, fn=factory(card), backend=backend)
