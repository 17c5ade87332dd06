"""Pairwise-preference kind: which of two images (by position) better answers a question.

The engine asks each criterion twice with the images swapped; this kind answers one order.
It never sees model names, only FIRST and SECOND.
"""

from __future__ import annotations

from skills.card import SkillCard
from skills.kinds import SkillFn
from skills.kinds.common import prompt_part
from skills.rendering import data_block, image_part, messages, render_template, text_part
from skills.schemas import pairwise_schema
from skills.types import Cause, ChoiceValue, ModelCallError, ModelClient, SkillInput, SkillOutput

TIE_ALLOWED = (
    "Answer `tie` only when the two images are genuinely equal on this question; otherwise "
    "pick `first` or `second`."
)
TIE_FORBIDDEN = "You must pick `first` or `second`, even when the difference is small."


def pair_parts(inp: SkillInput, show_prompt: bool) -> list[dict]:
    """The material of one order: the prompt (if shown), then FIRST and SECOND images."""
    parts: list[dict] = []
    if show_prompt:
        if inp.brief:
            parts.append(text_part(data_block("TASK BRIEF", inp.brief)))
        parts.append(prompt_part(inp, "PROMPT BOTH IMAGES WERE GENERATED FROM"))
    parts += [
        text_part("FIRST image:"),
        image_part(inp.images["first"]),
        text_part("SECOND image:"),
        image_part(inp.images["second"]),
    ]
    return parts


async def ask_choice(
    card: SkillCard, parts: list[dict], allow_tie: bool, client: ModelClient
) -> SkillOutput:
    """Ask ``card``'s question about the material ``parts`` (two images by position, FIRST and
    SECOND); the answer, or the criterion unscored when the model call fails."""
    question = card.question.strip()
    system = render_template(
        card.template, question=question, tie_rule=TIE_ALLOWED if allow_tie else TIE_FORBIDDEN
    )
    parts = [*parts, text_part(f"Question: {question}")]
    try:
        answer = await client.structured(
            messages(system, parts), pairwise_schema(allow_tie), tag=card.tag
        )
    except ModelCallError as exc:
        reason = f"model call failed: {exc}"
        return SkillOutput(choices={card.name: ChoiceValue.unscored(Cause.FAILED, reason)})
    return SkillOutput(
        choices={
            card.name: ChoiceValue(
                choice=answer.choice,  # type: ignore[attr-defined]  # a model built at run time (skills.schemas)
                rationale=answer.rationale,  # type: ignore[attr-defined]  # a model built at run time (skills.schemas)
            )
        }
    )


def pairwise_preference(card: SkillCard) -> SkillFn:
    """Build the async pairwise skill of a criterion card."""

    async def run(inp: SkillInput, client: ModelClient) -> SkillOutput:
        if "first" not in inp.images or "second" not in inp.images:
            reason = "a pairwise criterion needs two images"
            return SkillOutput(choices={card.name: ChoiceValue.unscored(Cause.FAILED, reason)})
        parts = pair_parts(inp, card.show_prompt and inp.show_prompt)
        return await ask_choice(card, parts, inp.allow_tie, client)

    return run
