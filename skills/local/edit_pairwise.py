"""Edit-pairwise kind on the local backend: the two edits' local estimates of the criterion
(:func:`skills.local.edit.estimate_value`, from measured shifts and image features) compared —
the higher wins, equal estimates tie. A criterion with no local estimate (instruction
following outside text edits) is unscored with cause ``no_model``. Deterministic."""

from __future__ import annotations

import asyncio
import dataclasses

from skills.card import SkillCard
from skills.kinds import SkillFn
from skills.kinds.edit_pairwise import criterion_of, missing_roles
from skills.local.edit import estimate_value
from skills.types import ChoiceValue, ModelClient, SkillInput, SkillOutput


def compare_estimates(name: str, inp: SkillInput) -> ChoiceValue:
    """``first``/``second``/``tie`` by the two edits' local estimates of ``name``."""
    values = []
    for role in ("first", "second"):
        images = {"source": inp.images["source"], "edited": inp.images[role]}
        value = estimate_value(name, dataclasses.replace(inp, images=images))
        if value.score is None:
            return ChoiceValue.unscored(value.cause, value.reason)  # type: ignore[arg-type]  # an unscored value always has its cause
        values.append(float(value.score))
    first, second = values
    choice = "first" if first > second else "second" if second > first else "tie"
    why = f"Local estimates of {name}, no judge model: FIRST {first:g}, SECOND {second:g}."
    return ChoiceValue(choice=choice, rationale=why)


def local_edit_pairwise(card: SkillCard) -> SkillFn:
    """Build the local comparison of two edits on a criterion."""
    name = criterion_of(card)

    async def run(inp: SkillInput, client: ModelClient) -> SkillOutput:
        if (missing := missing_roles(inp)) is not None:
            return SkillOutput(choices={card.name: missing})
        return SkillOutput(
            choices={card.name: await asyncio.to_thread(compare_estimates, name, inp)}
        )

    return run
