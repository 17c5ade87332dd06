"""Edit-rubric kind on the local backend: heuristic estimates from measured shifts.

``image_consistency`` from the shift metrics, ``visual_quality`` from weight-free image
quality features relative to the source, ``instruction_following`` only for text edits
(OCR character accuracy); each marked as a local estimate with its formula. Anything else
is unscored with cause ``no_model``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from skills.card import SkillCard
from skills.kinds import SkillFn
from skills.local import NEEDS_VLM
from skills.local.common import payload_image
from skills.types import Cause, ModelClient, ScoreValue, SkillInput, SkillOutput

CONSISTENCY = ["color_shift", "structure_distance", "face_identity"]


def _estimate(name: str, inp: SkillInput) -> dict[str, Any] | None:
    from skills.metrics import compute_all
    from skills.metrics.estimates import (
        image_consistency_estimate,
        instruction_following_estimate,
        visual_quality_estimate,
    )

    src, edited = payload_image(inp.images["source"]), payload_image(inp.images["edited"])
    dinov2 = inp.options.get("dinov2")
    if name == "visual_quality":
        return visual_quality_estimate(edited, src)
    if name == "image_consistency":
        metrics = compute_all(src, edited, inp.prompt, metrics=CONSISTENCY, dinov2=dinov2)
        return image_consistency_estimate(metrics)
    if name == "instruction_following":
        metrics = compute_all(src, edited, inp.prompt, metrics=["text_rendering"])
        return instruction_following_estimate(metrics)
    return None


def estimate_value(name: str, inp: SkillInput) -> ScoreValue:
    """The local estimate of edit criterion ``name`` for ``inp`` (its ``source`` and
    ``edited`` images), or an unscored value (cause ``no_model``) saying why there is none."""
    est = _estimate(name, inp)
    if est is None or est.get("score") is None:
        why = (est or {}).get("reason") or f"no local estimate for {name}"
        return ScoreValue.unscored(Cause.NO_MODEL, f"{why}; {NEEDS_VLM}")
    shown = {k: est[k] for k in ("penalties", "features") if k in est}
    return ScoreValue(
        score=est["score"],
        rationale=f"Local estimate, no judge model ({est.get('formula', '')}); {shown}"[:1200],
    )


def local_edit_rubric(card: SkillCard) -> SkillFn:
    """Build the local estimator of an edit criterion."""
    name = card.dimension_names[0]

    async def run(inp: SkillInput, client: ModelClient) -> SkillOutput:
        if "source" not in inp.images or "edited" not in inp.images:
            why = "an edit criterion needs the source and the edited image"
            return SkillOutput(scores={name: ScoreValue.unscored(Cause.FAILED, why)})
        return SkillOutput(scores={name: await asyncio.to_thread(estimate_value, name, inp)})

    return run
