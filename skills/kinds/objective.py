"""Objective-checklist kind: pass/fail verdicts on checkpoints, in the prompt or the image.

One call per checkpoint (the reference design) or one call covering every checkpoint of a
modality (batched): the engine decides by how many checks it puts in the input.

Checkpoint ids come from the submission, so they are untrusted text: a batched call names
the checkpoints to the model by position (``k1``, ``k2``, …) inside the data block and in the
answer schema, and maps the answers back to the submission's ids.
"""

from __future__ import annotations

import json

from skills.card import SkillCard
from skills.kinds import SkillFn
from skills.kinds.common import prompt_part, task_parts
from skills.rendering import data_block, image_part, messages, render_template, text_part
from skills.schemas import CheckAnswer, batch_check_schema
from skills.types import Cause, ModelCallError, ModelClient, SkillInput, SkillOutput, VerdictValue


def _unscored(inp: SkillInput, reason: str, cause: Cause = Cause.FAILED) -> SkillOutput:
    return SkillOutput(verdicts={c.id: VerdictValue.unscored(cause, reason) for c in inp.checks})


def objective_checklist(card: SkillCard) -> SkillFn:
    """Build the async checklist skill for one modality."""
    single_system = render_template(card.template)
    batch_system = render_template(card.batch_template or card.template)

    async def run(inp: SkillInput, client: ModelClient) -> SkillOutput:
        if not inp.checks:
            return SkillOutput()
        if card.modality == "image" and inp.image is None:
            return _unscored(inp, "no image submitted", Cause.NOT_APPLICABLE)
        # QA on the prompt needs the brief only as context for "related terms"; VQA doesn't.
        parts = task_parts(inp, with_brief=False)
        if card.modality == "prompt":
            parts.append(prompt_part(inp))
        else:
            assert inp.image is not None
            parts.append(text_part("Evaluated image:"))
            parts.append(image_part(inp.image))
        batched = len(inp.checks) > 1
        positional = {f"k{n}": c.id for n, c in enumerate(inp.checks, start=1)}
        if batched:
            listing = json.dumps(
                [{"id": k, "check": c.text} for k, c in zip(positional, inp.checks, strict=True)],
                indent=1,
            )
            parts.append(text_part(data_block("CHECKPOINTS", listing)))
            parts.append(text_part("Give a verdict for every checkpoint id, each exactly once."))
            schema = batch_check_schema(list(positional))
            system = batch_system
        else:
            parts.append(text_part(data_block("CHECKPOINT", inp.checks[0].text)))
            parts.append(text_part("Give your verdict on this checkpoint."))
            schema = CheckAnswer
            system = single_system
        try:
            answer = await client.structured(messages(system, parts), schema, tag=card.tag)
        except ModelCallError as exc:
            return _unscored(inp, f"model call failed: {exc}")
        if batched:
            return SkillOutput(
                verdicts={
                    positional[r.id]: VerdictValue(verdict=r.verdict, rationale=r.rationale)
                    for r in answer.results  # type: ignore[attr-defined]  # a model built at run time (skills.schemas)
                }
            )
        return SkillOutput(
            verdicts={
                inp.checks[0].id: VerdictValue(
                    verdict=answer.verdict,  # type: ignore[attr-defined]  # a model built at run time (skills.schemas)
                    rationale=answer.rationale,  # type: ignore[attr-defined]  # a model built at run time (skills.schemas)
                )
            }
        )

    return run
