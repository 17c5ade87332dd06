"""Pairwise-preference kind on the local backend: no packaged model can compare two images
against a question, so every criterion is unscored with that cause (``no_model``)."""

from __future__ import annotations

from skills.card import SkillCard
from skills.kinds import SkillFn
from skills.local import NEEDS_VLM
from skills.types import Cause, ChoiceValue, ModelClient, SkillInput, SkillOutput


def local_pairwise(card: SkillCard) -> SkillFn:
    """Build the local (always unscored) pairwise skill."""
    reason = f"pairwise judging {NEEDS_VLM}"

    async def run(inp: SkillInput, client: ModelClient) -> SkillOutput:
        return SkillOutput(choices={card.name: ChoiceValue.unscored(Cause.NO_MODEL, reason)})

    return run
