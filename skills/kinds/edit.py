"""Edit-rubric kind: one 1–5 criterion of an image edit, with reasoning before the score.

The judge sees the SOURCE image, the instruction (a data block) and the EDITED image. With
``samples`` > 1 the engine asks several times (each request marked with its sample number,
so cached answers are not reused across samples) and averages.
"""

from __future__ import annotations

from skills.card import SkillCard
from skills.kinds import SkillFn, register_kind
from skills.kinds.subjective import rubric_text
from skills.rendering import data_block, image_part, messages, render_template, text_part
from skills.schemas import EditAnswer
from skills.types import Cause, ModelCallError, ModelClient, ScoreValue, SkillInput, SkillOutput


def edit_parts(inp: SkillInput) -> list[dict]:
    """Source image, instruction (data block), edited image."""
    return [
        text_part("SOURCE image:"),
        image_part(inp.images["source"]),
        text_part(data_block("EDIT INSTRUCTION", inp.prompt)),
        text_part("EDITED image:"),
        image_part(inp.images["edited"]),
    ]


@register_kind("edit-rubric")
def edit_rubric(card: SkillCard) -> SkillFn:
    """Build the async skill of an edit criterion card (one dimension per card).

    Example:
        >>> from skills.registry import default_registry
        >>> default_registry().skill("image_consistency").card.dimension_names
        ['image_consistency']
    """
    if len(card.dimensions) != 1:
        raise ValueError(f"edit-rubric card {card.name!r} must define exactly one dimension")
    dim = card.dimensions[0]
    tag = f"{card.name}@{card.version}"
    system = render_template(card.template, dimensions=f"`{dim.name}`", rubric=rubric_text(dim))

    async def run(inp: SkillInput, client: ModelClient) -> SkillOutput:
        if "source" not in inp.images or "edited" not in inp.images:
            why = "an edit criterion needs the source and the edited image"
            return SkillOutput(scores={dim.name: ScoreValue.unscored(Cause.FAILED, why)})
        parts = edit_parts(inp)
        sample = int(inp.options.get("sample", 0))
        if sample:
            parts.append(text_part(f"Independent assessment number {sample + 1}."))
        parts.append(text_part(f"Rate the edit on {dim.name}."))
        try:
            answer = await client.structured(messages(system, parts), EditAnswer, tag=tag)
        except ModelCallError as exc:
            why = f"model call failed: {exc}"
            return SkillOutput(scores={dim.name: ScoreValue.unscored(Cause.FAILED, why)})
        return SkillOutput(
            scores={dim.name: ScoreValue(score=answer.score, rationale=answer.reasoning)}  # type: ignore[attr-defined]
        )

    return run
