"""Shift-metrics kind: measured differences between a source image and its edit.

Both backends compute the metrics locally (:func:`skills.metrics.compute_all`, no model).
With a judge model (``llm`` backend) one call first decides which metrics apply to the
instruction and which text it asks for; if that call fails, the rules on the instruction
decide, and the result says so.
"""

from __future__ import annotations

import asyncio
from typing import Any

from skills.card import SkillCard
from skills.kinds import SkillFn
from skills.rendering import data_block, messages, render_template, text_part
from skills.schemas import ApplicabilityAnswer
from skills.types import ModelCallError, ModelClient, SkillInput, SkillOutput

METRICS = ("color_shift", "structure_distance", "face_identity", "text_rendering")


def _compute(inp: SkillInput, applicability: dict | None, text: list[str] | None) -> dict:
    from skills.local.common import payload_image
    from skills.metrics import compute_all

    values = compute_all(
        payload_image(inp.images["source"]),
        payload_image(inp.images["edited"]),
        inp.prompt,
        applicability=applicability,
        requested_text=text,
        dinov2=inp.options.get("dinov2"),
    )
    return {name: v.as_dict() for name, v in values.items()}


async def _decide(card: SkillCard, inp: SkillInput, client: ModelClient) -> dict[str, Any]:
    system = render_template(card.template)
    parts = [text_part(data_block("EDIT INSTRUCTION", inp.prompt))]
    parts.append(text_part("Decide which measurements apply."))
    answer = await client.structured(messages(system, parts), ApplicabilityAnswer, tag=card.tag)
    why = f"the judge model decided it does not apply: {answer.reasoning}"[:300]
    decided = {m: (bool(getattr(answer, m)), None if getattr(answer, m) else why) for m in METRICS}
    text = answer.requested_text.strip()
    return {"applicability": decided, "text": [text] if answer.text_rendering and text else None}


def _build(card: SkillCard, ask_model: bool) -> SkillFn:
    async def run(inp: SkillInput, client: ModelClient) -> SkillOutput:
        if "source" not in inp.images or "edited" not in inp.images:
            return SkillOutput()
        decided: dict[str, Any] = {"applicability": None, "text": None}
        note = None
        if ask_model:
            try:
                decided = await _decide(card, inp, client)
            except ModelCallError as exc:
                note = f"applicability by rules: the model call failed ({exc})"[:300]
        metrics = await asyncio.to_thread(_compute, inp, decided["applicability"], decided["text"])
        if note:
            for m in metrics.values():
                m["details"]["applicability_note"] = note
        return SkillOutput(metrics=metrics)

    return run


def shift_metrics(card: SkillCard) -> SkillFn:
    """Metrics whose applicability the judge model decides."""
    return _build(card, ask_model=True)


def local_shift_metrics(card: SkillCard) -> SkillFn:
    """Metrics whose applicability rules on the instruction decide (no model)."""
    return _build(card, ask_model=False)
