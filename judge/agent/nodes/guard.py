"""Run a skill so that nothing it does can raise into the graph."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from skills.card import SkillCard
from skills.extras import MissingExtra
from skills.kinds import Skill
from skills.types import (
    Cause,
    ChoiceValue,
    ModelClient,
    SafetyValue,
    ScoreValue,
    SkillInput,
    SkillOutput,
    VerdictValue,
)

log = logging.getLogger("judge.agent")


def unscored_output(
    card: SkillCard, check_ids: tuple[str, ...], cause: Cause, reason: str
) -> SkillOutput:
    """Everything ``card`` would have produced, unscored with one cause and reason.

    Example:
        >>> from skills.registry import default_registry
        >>> card = default_registry().card("image_check")
        >>> out = unscored_output(card, ("c1",), Cause.FAILED, "boom")
        >>> out.verdicts["c1"].cause.value
        'failed'
    """
    return SkillOutput(
        scores={d: ScoreValue.unscored(cause, reason) for d in card.dimension_names},
        verdicts={c: VerdictValue.unscored(cause, reason) for c in check_ids},
        choices=(
            {card.name: ChoiceValue.unscored(cause, reason)}
            if card.kind in ("pairwise-preference", "edit-pairwise")
            else {}
        ),
        safety=SafetyValue.unscored(cause, reason) if card.kind == "safety" else None,
    )


async def guarded(skill: Skill, inp: SkillInput, client: ModelClient) -> SkillOutput:
    """Call ``skill``; an unexpected exception becomes unscored values with the reason."""
    try:
        return await skill(inp, client)
    except MissingExtra as exc:  # not a bug: the install lacks a part (one line says which)
        log.warning("skill %s: %s", skill.tag, exc)
        reason = f"{skill.tag}: {exc}"[:300]
    except Exception as exc:  # a skill bug must not take the whole submission down
        log.exception("skill %s failed", skill.tag)
        reason = f"internal error in {skill.tag}: {type(exc).__name__}: {exc}"[:300]
    return unscored_output(skill.card, tuple(c.id for c in inp.checks), Cause.FAILED, reason)


async def guarded_input(
    skill: Skill, check_ids: tuple[str, ...], build: Callable[[], Awaitable[SkillInput]]
) -> SkillInput | SkillOutput:
    """Build a skill's input (exemplar retrieval included); a failure — a damaged memory,
    an unreadable exemplar — becomes the item's unscored output instead of an exception."""
    try:
        return await build()
    except MissingExtra as exc:  # a memory on the core install: one line, no traceback
        log.warning("input for %s: %s", skill.tag, exc)
        reason = f"exemplar memory unavailable for {skill.tag}: {exc}"[:300]
        return unscored_output(skill.card, check_ids, Cause.NO_MEMORY, reason)
    except Exception as exc:
        from memory.exemplar import ExemplarError

        log.exception("input for %s failed", skill.tag)
        memory_fault = (
            isinstance(exc, (ExemplarError, OSError)) or "memory" in type(exc).__name__.lower()
        )
        cause = Cause.NO_MEMORY if memory_fault else Cause.FAILED
        what = "exemplar memory unavailable" if memory_fault else "could not prepare the input"
        reason = f"{what} for {skill.tag}: {type(exc).__name__}: {exc}"[:300]
        return unscored_output(skill.card, check_ids, cause, reason)
