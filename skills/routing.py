"""Checklist routing: which objective-checklist card checks each primitive, per side.

Every checkpoint is checked by exactly one checklist card on each side (the prompt, each
image). A card that lists ``primitives`` takes the checkpoints of those primitives; the
others go to the side's general card (one without ``primitives``): a general card you add
replaces the built-in one of its side. Two cards that would check the same checkpoints (the
same primitive, side and task category) are a configuration error naming both cards, raised
when the registry is built, never a silent pick.

Example:
    >>> from skills.card import SkillCard
    >>> cards = [
    ...     SkillCard(name="image_check", kind="objective-checklist", version="1",
    ...               modality="image", template="objective_image.md"),
    ...     SkillCard(name="count_check", kind="objective-checklist", version="1",
    ...               modality="image", template="objective_image.md", primitives=["quantity"]),
    ... ]
    >>> routes = checklist_routes(cards, "image", "CO")
    >>> routes["quantity"], routes["text"]
    ('count_check', 'image_check')
"""

from __future__ import annotations

from collections.abc import Iterable

from skills.card import CATEGORIES, CHECKLIST_SIDES, SkillCard
from skills.primitives import PRIMITIVES

KIND = "objective-checklist"


def _where(card: SkillCard) -> str:
    return card.source or "(built in code)"


def _one(cards: list[SkillCard], what: str) -> SkillCard | None:
    """The single card of ``cards``, None for none; two or more is an error naming them."""
    if len(cards) > 1:
        names = " and ".join(f"{c.name!r} ({_where(c)})" for c in cards)
        raise ValueError(
            f"checklist cards {names} both claim {what}: each checkpoint is checked by one "
            "card per side. Narrow one card's 'primitives' or 'categories', or disable it "
            "(enabled = false)"
        )
    return cards[0] if cards else None


def checklist_routes(cards: Iterable[SkillCard], side: str, category: str) -> dict[str, str]:
    """Primitive -> name of the card that checks it on ``side`` for tasks of ``category``.

    A primitive no card serves is absent (its checkpoints are not checked on that side).
    Raises ``ValueError`` naming both cards when two claim the same checkpoints.
    """
    live = [
        c
        for c in cards
        if c.kind == KIND and c.enabled and c.modality == side and category in c.categories
    ]
    general = [c for c in live if not c.primitives]
    added = [c for c in general if not c.builtin]
    fallback = _one(added or general, f"the general {side}-side checks of {category} tasks")
    routes: dict[str, str] = {}
    for primitive in PRIMITIVES:
        claimed = [c for c in live if primitive in c.primitives]
        card = _one(claimed, f"{primitive!r} on the {side} side of {category} tasks") or fallback
        if card is not None:
            routes[primitive] = card.name
    return routes


def all_checklist_routes(cards: Iterable[SkillCard]) -> dict[tuple[str, str], dict[str, str]]:
    """The routes of every (side, category): checks the whole configuration at once."""
    cards = list(cards)
    return {
        (side, category): checklist_routes(cards, side, category)
        for side in CHECKLIST_SIDES
        for category in CATEGORIES
    }
