"""Local subjective kind: 1–5 estimates from the card's exemplar memory, no judge model.

See :mod:`skills.local.predictor` for how the estimate is made and chosen. Without a
memory for the card there is nothing to estimate from: the dimension is unscored.
"""

from __future__ import annotations

import asyncio

from memory.encoders import DEFAULT_TEXT_ENCODER, get_encoder
from skills.card import SkillCard
from skills.kinds import SkillFn
from skills.local import NEEDS_VLM
from skills.local.common import unscored_scores
from skills.local.predictor import memory_model
from skills.types import (
    Cause,
    Exemplar,
    MemoryContext,
    ModelClient,
    ScoreValue,
    SkillInput,
    SkillOutput,
)


def _estimate(mc: MemoryContext, dims: list[str], prompt: str) -> SkillOutput:
    mem = mc.memory
    text = get_encoder(DEFAULT_TEXT_ENCODER) if mem.manifest.modality == "image" else None
    model = memory_model(mem, text)
    query = model.query_vectors(mc.vector, mc.image, prompt)
    preds = model.predict(query, dims, set(mc.exclude))
    out = SkillOutput()
    shown: dict[str, float] = {}
    for dim in dims:
        if dim not in preds:
            out.scores[dim] = ScoreValue.unscored(
                Cause.NO_MODEL, f"{model.why_not(dim, mc.exclude)}; {NEEDS_VLM}"
            )
            continue
        value, choice, neighbours = preds[dim]
        shown.update({i: s for i, s in neighbours})
        cv = f"{choice.cv_spearman:.2f}" if choice.cv_spearman is not None else "n/a"
        err = f", typical error ±{choice.rmse:.2f}" if choice.rmse is not None else ""
        near = ", ".join(f"{i} ({s:.2f})" for i, s in neighbours)
        related = model.related_scale(dim, mc.exclude) if "sibling" in choice.spaces else None
        label = choice.describe({"sibling": related} if related else None)
        out.scores[dim] = ScoreValue(
            score=value,
            rationale=(
                f"Local estimate, no judge model: {label}, chosen and "
                f"fitted on {choice.n} expert-scored exemplars of memory {mem.name!r} "
                f"(leave-one-group-out Spearman {cv}; confidence {choice.confidence:.2f}{err}; "
                f"weak evidence pulls the estimate toward the memory mean). "
                f"Nearest exemplars: {near}."
            ),
        )
    out.exemplars = tuple(
        Exemplar(id=i, similarity=round(s, 4), scores={}, rationales={}) for i, s in shown.items()
    )
    return out


def local_subjective(card: SkillCard) -> SkillFn:
    """Build the local estimator for a subjective card."""
    dims = card.dimension_names

    async def run(inp: SkillInput, client: ModelClient) -> SkillOutput:
        if card.modality == "image" and inp.image is None:
            return SkillOutput(
                scores=unscored_scores(dims, "no image submitted", Cause.NOT_APPLICABLE)
            )
        if inp.memory is None:
            where = (
                f"build the exemplar memory {inp.memory_name!r} (judge memory build)"
                if inp.memory_name
                else "give the card a memory"
            )
            return SkillOutput(
                scores=unscored_scores(
                    dims, f"{NEEDS_VLM}, or {where} for local estimates", Cause.NO_MEMORY
                )
            )
        return await asyncio.to_thread(_estimate, inp.memory, dims, inp.prompt)

    return run
