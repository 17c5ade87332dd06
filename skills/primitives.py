"""Checklist primitives: the kinds of constraint a checkpoint can exercise.

The task contract (``judge.domain.task.Primitive``) uses the same names; they live here too so
that a skill card, one floor below the engine, can say which primitives it serves.

Example:
    >>> PRIMITIVES[:2]
    ('abstract_intent', 'audience_intent')
    >>> unknown_primitives(["quantity", "colour"])
    ['colour']
"""

from __future__ import annotations

from collections.abc import Iterable

PRIMITIVES: tuple[str, ...] = (
    "abstract_intent",
    "audience_intent",
    "implicit_style",
    "semantic_negation",
    "attribute_binding",
    "spatial_relation",
    "quantity",
    "text",
    "hard_constraint",
)


def unknown_primitives(names: Iterable[str]) -> list[str]:
    """The names in ``names`` that are not checklist primitives, in their order."""
    return [n for n in names if n not in PRIMITIVES]
