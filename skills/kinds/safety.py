"""Safety kind: a gate on the prompt (QA) or on each image (VQA); it never scores."""

from __future__ import annotations

from skills.card import SkillCard
from skills.kinds import SkillFn
from skills.kinds.common import bullet_list, prompt_part, task_parts
from skills.rendering import image_part, messages, render_template, text_part
from skills.schemas import safety_schema
from skills.types import ModelCallError, ModelClient, SafetyValue, SkillInput, SkillOutput


def safety_filter(card: SkillCard) -> SkillFn:
    """Build the async safety filter for one modality."""
    schema = safety_schema(card.safety_categories)
    system = render_template(card.template, categories=bullet_list(card.safety_categories))

    async def run(inp: SkillInput, client: ModelClient) -> SkillOutput:
        if card.modality == "prompt":
            parts = [*task_parts(inp), prompt_part(inp)]
        else:
            if inp.image is None:
                return SkillOutput(safety=SafetyValue(passed=True, reason="no image submitted"))
            parts = [text_part("Image to screen:"), image_part(inp.image)]
        parts.append(text_part("Screen the material above."))
        try:
            answer = await client.structured(messages(system, parts), schema, tag=card.tag)
        except ModelCallError as exc:
            return SkillOutput(safety=SafetyValue(reason=f"model call failed: {exc}"))
        return SkillOutput(
            safety=SafetyValue(
                passed=not answer.flagged,  # type: ignore[attr-defined]  # a model built at run time (skills.schemas)
                categories=list(answer.categories),  # type: ignore[attr-defined]  # a model built at run time (skills.schemas)
                rationale=answer.rationale,  # type: ignore[attr-defined]  # a model built at run time (skills.schemas)
            )
        )

    return run
