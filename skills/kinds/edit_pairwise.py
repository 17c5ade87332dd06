"""Edit-pairwise kind: which of two edits of one source (by position) better answers one edit
criterion's question.

The judge sees the SOURCE image, the instruction (a data block) and the two edited images as
FIRST and SECOND, never the editors' names; the engine asks each criterion twice with the
edits swapped (the ``edit_compare`` mode). A card of this kind is named ``pair_<criterion>``
after the edit criterion it asks about (:func:`criterion_of`).
"""

from __future__ import annotations

from skills.card import SkillCard
from skills.kinds import SkillFn
from skills.kinds.edit import edit_parts
from skills.kinds.pairwise import ask_choice
from skills.types import Cause, ChoiceValue, ModelClient, SkillInput, SkillOutput

PREFIX = "pair_"
ROLES = ("source", "first", "second")


def criterion_of(card: SkillCard) -> str:
    """The edit criterion a ``pair_<criterion>`` card asks about.

    Example:
        >>> from skills.registry import default_registry
        >>> criterion_of(default_registry().card("pair_visual_quality"))
        'visual_quality'
    """
    return card.name.removeprefix(PREFIX)


def edit_pair_parts(inp: SkillInput) -> list[dict]:
    """Source image, instruction (data block), FIRST and SECOND edited images."""
    return edit_parts(inp, (("FIRST edited", "first"), ("SECOND edited", "second")))


def missing_roles(inp: SkillInput) -> ChoiceValue | None:
    """An unscored answer when the input lacks the source or one of the two edits."""
    if all(role in inp.images for role in ROLES):
        return None
    return ChoiceValue.unscored(Cause.FAILED, "an edit comparison needs the source and two edits")


def edit_pairwise(card: SkillCard) -> SkillFn:
    """Build the async skill of an edit-pairwise card."""
    if not card.name.startswith(PREFIX) or not card.question.strip():
        raise ValueError(f"edit-pairwise card {card.name!r} needs a name pair_<criterion> and "
                         "a question")  # fmt: skip

    async def run(inp: SkillInput, client: ModelClient) -> SkillOutput:
        if (missing := missing_roles(inp)) is not None:
            return SkillOutput(choices={card.name: missing})
        return await ask_choice(card, edit_pair_parts(inp), inp.allow_tie, client)

    return run
