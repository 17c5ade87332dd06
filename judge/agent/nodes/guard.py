"""Run a skill so that nothing it does can raise into the graph."""

from __future__ import annotations

import logging

from skills.kinds import Skill
from skills.types import (
    ModelClient,
    SafetyValue,
    ScoreValue,
    SkillInput,
    SkillOutput,
    VerdictValue,
)

log = logging.getLogger("judge.agent")


async def guarded(skill: Skill, inp: SkillInput, client: ModelClient) -> SkillOutput:
    """Call ``skill``; an unexpected exception becomes unscored values with the reason."""
    try:
        return await skill(inp, client)
    except Exception as exc:  # a skill bug must not take the whole submission down
        log.exception("skill %s failed", skill.tag)
        reason = f"internal error in {skill.tag}: {type(exc).__name__}: {exc}"[:300]
        return SkillOutput(
            scores={d: ScoreValue(reason=reason) for d in skill.card.dimension_names},
            verdicts={c.id: VerdictValue(reason=reason) for c in inp.checks},
            safety=SafetyValue(reason=reason) if skill.card.kind == "safety" else None,
        )
