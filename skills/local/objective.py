"""Local objective kind: checkpoints decidable without a vision-language model.

- image side: the registered local strategies (:mod:`skills.local.image_checks`): quoted
  text by OCR, colour palettes by pixel naming, and presence, counts, relations and colours
  of COCO objects by a packaged detector;
- prompt side: exact text, counts and colours decided from the prompt itself
  (:mod:`skills.local.prompt_rules`);
- everything else: unscored, with the reason.

Example:
    >>> from skills.registry import default_registry
    >>> default_registry().skill("image_check", "local").backend
    'local'
"""

from __future__ import annotations

import asyncio

from skills.card import SkillCard
from skills.kinds import SkillFn
from skills.local import NEEDS_VLM
from skills.local.common import unscored_verdicts
from skills.local.image_checks import strategies
from skills.local.prompt_rules import decide_prompt
from skills.types import (
    Cause,
    CheckSpec,
    ImagePayload,
    ModelClient,
    SkillInput,
    SkillOutput,
    VerdictValue,
)


def _image_verdict(check: CheckSpec, image: ImagePayload) -> VerdictValue:
    for strategy in strategies().values():
        value = strategy(check, image)
        if value is not None:
            return value
    return VerdictValue.unscored(Cause.NO_MODEL, NEEDS_VLM)


def _prompt_verdict(check: CheckSpec, prompt: str) -> VerdictValue:
    verdict, why = decide_prompt(check.text, prompt, check.primitive)
    if verdict is None:
        return VerdictValue.unscored(Cause.NO_MODEL, f"{why}; {NEEDS_VLM}")
    return VerdictValue(verdict=verdict, rationale=why)


def local_checklist(card: SkillCard) -> SkillFn:
    """Build the local checklist skill for one modality."""

    def decide(inp: SkillInput) -> SkillOutput:
        if card.modality == "prompt":
            return SkillOutput(verdicts={c.id: _prompt_verdict(c, inp.prompt) for c in inp.checks})
        assert inp.image is not None
        return SkillOutput(verdicts={c.id: _image_verdict(c, inp.image) for c in inp.checks})

    async def run(inp: SkillInput, client: ModelClient) -> SkillOutput:
        if card.modality == "image" and inp.image is None:
            return SkillOutput(
                verdicts=unscored_verdicts(
                    [c.id for c in inp.checks], "no image submitted", Cause.NOT_APPLICABLE
                )
            )
        return await asyncio.to_thread(decide, inp)

    return run
