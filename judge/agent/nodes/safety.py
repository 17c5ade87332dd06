"""The ``safety`` node: prompt filter and one image filter per image, run concurrently.

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


async def safety(state: dict, runtime: Runtime[RunContext]) -> JudgeState:
    """Screen the prompt and every image."""
    ctx = runtime.context
    if not ctx.settings.safety:
        off = SafetyValue(passed=True, reason="safety filter disabled by configuration")
        return {"safety": SafetyOutcome(prompt=off, images=[off for _ in ctx.images])}
    prompt_cards = ctx.registry.cards(kind="safety", modality="prompt")
    image_cards = ctx.registry.cards(kind="safety", modality="image")
    client = ctx.client(ctx.models[0])
    jobs = [
        guarded(ctx.skill(c.name), ctx.skill_input(modality="prompt"), client) for c in prompt_cards
    ]
    for i in range(len(ctx.images)):
        jobs += [
            guarded(ctx.skill(c.name), ctx.skill_input(modality="image", image=i), client)
            for c in image_cards
        ]
    outs = await asyncio.gather(*jobs)
    values = [o.safety or SafetyValue(reason="filter returned nothing") for o in outs]
    n_prompt = len(prompt_cards)
    prompt = _worst(values[:n_prompt])
    per_image = [
        _worst(values[n_prompt + i * len(image_cards) : n_prompt + (i + 1) * len(image_cards)])
        for i in range(len(ctx.images))
    ]
    used = {c.name: c.version for c in prompt_cards + image_cards}
    return {"safety": SafetyOutcome(prompt=prompt, images=per_image, skills=used)}


def _worst(values: list[SafetyValue]) -> SafetyValue:
    """Flagged beats undecided beats passed; no filter at all means passed."""
    if not values:
        return SafetyValue(passed=True, reason="no safety filter configured")
    for rank in (False, None):
        hits = [v for v in values if v.passed is rank]
        if hits:
            return hits[0]
    return values[0]


def after_safety(
    state: JudgeState, runtime: Runtime[RunContext]
) -> list[Send] | Literal["aggregate"]:
    """Sequential mode sends the work only once the gate passed."""
    if runtime.context.settings.speculative_safety:
        return "aggregate"
    outcome = state.get("safety")
    if outcome is not None and outcome.blocked_by:
        return "aggregate"
    if outcome is not None and runtime.context.settings.safety_on_error == "block":
        verdicts = [outcome.prompt, *outcome.images]
        if any(v is not None and v.passed is None for v in verdicts):
            return "aggregate"  # fail closed: an unscreened submission is not scored
    return work_sends(state) or "aggregate"
