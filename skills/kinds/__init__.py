"""Skill kinds: code that turns a card into an async skill, per backend.

Each kind has an implementation per backend: ``llm`` (a judge model through the gateway)
and ``local`` (packaged local models and exemplar memories, no network). :data:`KINDS` holds
one registry per backend, of factories ``card -> async skill``: the built-in kinds are lazy
``"module:factory"`` entries (``skills/kinds/`` for ``llm``, ``skills/local/`` for ``local``),
so asking which kinds exist never loads a model library; :func:`register_kind` adds one at
run time, and a plugin adds one with an entry point in ``t2i_judge.skill_kinds`` (``llm``) or
``t2i_judge.local_skill_kinds`` (``local``; docs/extending.md). :func:`build_skill` imports a
kind's module only when a card of that kind is built, failing helpfully on an unknown kind
or backend.

Example:
    >>> sorted(available_kinds())[:4]
    ['edit-pairwise', 'edit-rubric', 'objective-checklist', 'pairwise-preference']
    >>> sorted(available_kinds())[4:]
    ['safety', 'shift-metrics', 'subjective-rubric']
    >>> available_backends()
    ['llm', 'local']
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from registry import Registry, UnknownName
from skills.card import SkillCard
from skills.types import ModelClient, SkillInput, SkillOutput

SkillFn = Callable[[SkillInput, ModelClient], Awaitable[SkillOutput]]
Factory = Callable[[SkillCard], SkillFn]

KINDS: dict[str, Registry[Factory]] = {
    "llm": Registry[Factory]("skill kind", group="t2i_judge.skill_kinds"),
    "local": Registry[Factory]("local skill kind", group="t2i_judge.local_skill_kinds"),
}
"""Per backend, the kind factories by kind name."""
for _kind, _llm, _local in (
    ("edit-pairwise", "edit_pairwise:edit_pairwise", "edit_pairwise:local_edit_pairwise"),
    ("edit-rubric", "edit:edit_rubric", "edit:local_edit_rubric"),
    ("objective-checklist", "objective:objective_checklist", "objective:local_checklist"),
    ("pairwise-preference", "pairwise:pairwise_preference", "pairwise:local_pairwise"),
    ("safety", "safety:safety_filter", "safety:local_safety"),
    ("subjective-rubric", "subjective:subjective_rubric", "subjective:local_subjective"),
):
    KINDS["llm"].add_lazy(_kind, f"skills.kinds.{_llm}")
    KINDS["local"].add_lazy(_kind, f"skills.local.{_local}")
# the shift metrics run the same code on both backends (model-free, plus a judge model on llm)
KINDS["llm"].add_lazy("shift-metrics", "skills.kinds.shift:shift_metrics")
KINDS["local"].add_lazy("shift-metrics", "skills.kinds.shift:local_shift_metrics")
BUILT_IN_KINDS = frozenset(KINDS["llm"].names(plugins=False))
"""The kinds the modes know by name (each has its own place in a result)."""


def scores_dimensions(kind: str) -> bool:
    """True for a kind whose cards score their dimensions like a subjective rubric: the
    ``subjective-rubric`` kind and every kind added at run time or by a plugin, so
    ``judge score --skills`` can select their cards and results report their dimensions.

    Example:
        >>> scores_dimensions("subjective-rubric"), scores_dimensions("safety")
        (True, False)
    """
    return kind == "subjective-rubric" or kind not in BUILT_IN_KINDS


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


def register_kind(name: str, backend: str = "llm") -> Callable[[Factory], Factory]:
    """Decorator registering a factory ``card -> async skill`` for ``(name, backend)`` at run
    time (replacing one of that name). A package of its own registers its kinds with entry
    points instead (docs/extending.md), so they are listed before they are imported.

    Example::

        @register_kind("echo")
        def echo(card: SkillCard) -> SkillFn:
            async def run(inp: SkillInput, client: ModelClient) -> SkillOutput:
                return SkillOutput()
            return run
    """
    return _backend(backend).register(name, replace=True)


def _backend(backend: str) -> Registry[Factory]:
    if backend not in KINDS:
        raise UnknownName("backend", backend, available_backends())
    return KINDS[backend]


def available_kinds() -> list[str]:
    """Every kind name the registry knows (imported or not), on any backend."""
    return sorted({k for reg in KINDS.values() for k in reg})


def available_backends() -> list[str]:
    """Every backend some kind is implemented for."""
    return sorted(KINDS)


def build_skill(card: SkillCard, backend: str = "llm") -> Skill:
    """Bind ``card`` to the code of its kind for ``backend``: every kind's factory is
    reached through here (or :meth:`skills.registry.Registry.skill`, which calls it).

    Example:
        >>> from skills.registry import default_registry
        >>> skill = build_skill(default_registry().card("visual_quality"), "local")
        >>> skill.tag, skill.card.kind, skill.backend
        ('visual_quality@1.0.0', 'edit-rubric', 'local')
    """
    kinds = _backend(backend)
    if card.kind not in kinds:
        if card.kind not in available_kinds():
            raise UnknownName(
                "kind", card.kind, available_kinds(), context=f"card {card.name!r} has "
            )
        raise KeyError(
            f"kind {card.kind!r} has no {backend!r} implementation; "
            f"backends: {[b for b in available_backends() if card.kind in KINDS[b]]}"
        )
    return Skill(card=card, fn=kinds.get(card.kind)(card), backend=backend)
