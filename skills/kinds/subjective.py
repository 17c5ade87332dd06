"""Subjective-rubric kind: 1–5 Likert scores per dimension, calibrated by exemplars."""

from __future__ import annotations

from skills.card import Dimension, SkillCard
from skills.kinds import SkillFn
from skills.kinds.common import bullet_list, exemplar_parts, prompt_part, task_parts
from skills.rendering import image_part, messages, render_template, text_part
from skills.schemas import subjective_schema
from skills.types import Cause, ModelCallError, ModelClient, ScoreValue, SkillInput, SkillOutput


def rubric_text(dim: Dimension) -> str:
    """A dimension as rubric text: definition, what to check, anchors 5 to 1."""
    anchors = "\n".join(
        f"- {level}: {dim.anchors[level]}" for level in sorted(dim.anchors, reverse=True)
    )
    return (
        f"### {dim.title} (`{dim.name}`)\n{dim.definition.strip()}\n\n"
        f"Check:\n{bullet_list(dim.look_for)}\n\nAnchors:\n{anchors}"
    )


def _unscored(card: SkillCard, reason: str, cause: Cause = Cause.FAILED) -> SkillOutput:
    return SkillOutput(scores={d: ScoreValue.unscored(cause, reason) for d in card.dimension_names})


def subjective_rubric(card: SkillCard) -> SkillFn:
    """Build the async skill for a subjective card."""
    schema = subjective_schema(card.dimension_names)
    noun = "prompt" if card.modality == "prompt" else "image"

    def system(calibrated: bool) -> str:
        return render_template(
            card.template,
            modality=noun,
            rubric="\n\n".join(rubric_text(d) for d in card.dimensions),
            dimensions=", ".join(f"`{n}`" for n in card.dimension_names),
            calibration=(
                "Expert-scored exemplars of similar tasks follow the submission. Use them to "
                "calibrate the scale: match their scores where the evaluated item is of similar "
                "quality, and depart from them only for reasons the rubric names."
                if calibrated
                else "No exemplars are provided; apply the anchors as written."
            ),
        )

    async def run(inp: SkillInput, client: ModelClient) -> SkillOutput:
        if card.modality == "image" and inp.image is None:
            return _unscored(card, "no image submitted", Cause.NOT_APPLICABLE)
        parts = task_parts(inp)
        if card.modality == "prompt":
            parts.append(prompt_part(inp))
        else:
            parts.append(prompt_part(inp, "PROMPT THE IMAGE WAS GENERATED FROM"))
            parts.append(text_part("Evaluated image:"))
            assert inp.image is not None
            parts.append(image_part(inp.image))
        parts += exemplar_parts(inp.exemplars, card.modality)
        parts.append(text_part(f"Score the evaluated {noun} on {', '.join(card.dimension_names)}."))
        try:
            answer = await client.structured(
                messages(system(bool(inp.exemplars)), parts), schema, tag=card.tag
            )
        except ModelCallError as exc:
            return _unscored(card, f"model call failed: {exc}")
        out = SkillOutput(exemplars=inp.exemplars)
        for name in card.dimension_names:
            dim = getattr(answer, name)
            out.scores[name] = ScoreValue(score=dim.score, rationale=dim.rationale)
        return out

    return run
