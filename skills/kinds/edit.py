"""Edit-rubric kind: one 1–5 criterion of an image edit, with reasoning before the score.

The judge sees the SOURCE image, the instruction (a data block) and the EDITED image. With
``samples`` > 1 the engine asks several times (each request marked with its sample number,
so cached answers are not reused across samples) and averages.
"""

from __future__ import annotations

from skills.card import SkillCard
from skills.kinds import SkillFn
from skills.kinds.subjective import rubric_text
from skills.rendering import data_block, image_part, messages, render_template, text_part
from skills.schemas import EditAnswer
from skills.types import Cause, ModelCallError, ModelClient, ScoreValue, SkillInput, SkillOutput

EDITED = (("EDITED", "edited"),)
"""One edit: the ``edited`` view, shown as the EDITED image."""


def edit_parts(inp: SkillInput, edits: tuple[tuple[str, str], ...] = EDITED) -> list[dict]:
    """Source image, instruction (data block), then each edit: ``edits`` pairs the label an
    edited image is shown under with its view in ``inp.images``.

    Example:
        >>> from skills.types import ImagePayload
        >>> img = ImagePayload("data:image/png;base64,", "0")
        >>> inp = SkillInput("t", "CO", "", "make it blue", images={"source": img, "edited": img})
        >>> [p["text"] for p in edit_parts(inp) if p["type"] == "text"][-1]
        'EDITED image:'
    """
    parts = [
        text_part("SOURCE image:"),
        image_part(inp.images["source"]),
        text_part(data_block("EDIT INSTRUCTION", inp.prompt)),
    ]
    for label, view in edits:
        parts += [text_part(f"{label} image:"), image_part(inp.images[view])]
    return parts


def edit_rubric(card: SkillCard) -> SkillFn:
    """Build the async skill of an edit criterion card (one dimension per card)."""
    if len(card.dimensions) != 1:
        raise ValueError(f"edit-rubric card {card.name!r} must define exactly one dimension")
    dim = card.dimensions[0]
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
            answer = await client.structured(messages(system, parts), EditAnswer, tag=card.tag)
        except ModelCallError as exc:
            why = f"model call failed: {exc}"
            return SkillOutput(scores={dim.name: ScoreValue.unscored(Cause.FAILED, why)})
        return SkillOutput(
            scores={dim.name: ScoreValue(score=answer.score, rationale=answer.reasoning)}
        )

    return run
