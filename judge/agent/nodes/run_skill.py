"""The ``run_skill`` node: one work item, run on every judge model of the panel."""

from __future__ import annotations

import asyncio

from langgraph.runtime import Runtime

from judge.agent.context import RunContext
from judge.agent.nodes.guard import guarded, guarded_input
from judge.agent.panel import combine
from judge.agent.state import JudgeState
from judge.agent.work import WorkItem, WorkOutcome
from skills.types import SkillOutput


async def run_skill(task: dict, runtime: Runtime[RunContext]) -> JudgeState:
    """Run one item; the outcome lands in the reducer-annotated ``outcomes`` key."""
    ctx = runtime.context
    item: WorkItem = task["item"]
    skill = ctx.skill(item.skill)
    inp = await guarded_input(skill, item.checks, lambda: ctx.mode.skill_input(ctx, item))
    if isinstance(inp, SkillOutput):  # the input could not be built: unscored, with the cause
        return {"outcomes": [WorkOutcome(item=item, output=inp)]}
    models = ctx.models
    outputs = await asyncio.gather(*(guarded(skill, inp, ctx.client(m)) for m in models))
    merged = combine(models, list(outputs))
    return {
        "outcomes": [
            WorkOutcome(
                item=item,
                output=merged.output,
                votes_scores=merged.votes_scores,
                votes_verdicts=merged.votes_verdicts,
                votes_choices=merged.votes_choices,
                agreement=merged.agreement,
            )
        ]
    }
