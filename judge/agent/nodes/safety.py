"""The ``safety`` node: every target the mode names (prompt, each image), screened at once.

Panels use their first model for safety. An undecided filter (model failure) never reads
as passed: by default (``safety_on_error=unknown``) it leaves ``safety.passed`` null and the
result ``partial``; with ``safety_on_error=block`` the gate fails closed (``blocked``).
"""

from __future__ import annotations

import asyncio
from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Send

from judge.agent.context import RunContext
from judge.agent.nodes.guard import guarded
from judge.agent.nodes.route import work_sends
from judge.agent.state import JudgeState
from judge.agent.work import SafetyOutcome
from skills.types import SafetyValue


async def safety(state: JudgeState, runtime: Runtime[RunContext]) -> JudgeState:
    """Screen every safety target of the request."""
    ctx = runtime.context
    targets = ctx.mode.safety_targets(ctx)
    if not ctx.settings.safety:
        off = SafetyValue(passed=True, reason="safety filter disabled by configuration")
        return {"safety": SafetyOutcome(verdicts={t.label: off for t in targets})}
    client = ctx.client(ctx.models[0])
    jobs, owners, used = [], [], {}
    for t in targets:
        for card in ctx.registry.cards(kind="safety", modality=t.modality):
            jobs.append(guarded(ctx.skill(card.name), t.input, client))
            owners.append(t.label)
            used[card.name] = card.version
    outs = await asyncio.gather(*jobs)
    by_target: dict[str, list[SafetyValue]] = {t.label: [] for t in targets}
    for label, out in zip(owners, outs, strict=True):
        by_target[label].append(out.safety or SafetyValue(reason="filter returned nothing"))
    verdicts = {label: _worst(values) for label, values in by_target.items()}
    return {"safety": SafetyOutcome(verdicts=verdicts, skills=used)}


def _worst(values: list[SafetyValue]) -> SafetyValue:
    """Flagged beats undecided beats passed; no filter at all means passed."""
    if not values:
        return SafetyValue(passed=True, reason="no safety filter configured")
    for rank in (False, None):
        hits = [v for v in values if v.passed is rank]
        if hits:
            return hits[0]
    return values[0]


async def after_safety(
    state: JudgeState, runtime: Runtime[RunContext]
) -> list[Send] | Literal["aggregate"]:
    """Sequential mode sends the work only once the gate passed."""
    if runtime.context.settings.speculative_safety:
        return "aggregate"
    outcome = state.get("safety")
    if outcome is not None and outcome.blocked_by:
        return "aggregate"
    fail_closed = runtime.context.settings.safety_on_error == "block"
    if outcome is not None and outcome.undecided and fail_closed:
        return "aggregate"  # an unscreened submission is not scored
    return work_sends(state) or "aggregate"
