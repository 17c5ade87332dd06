"""The ``run_skill`` node: one work item, run on every judge model of the panel."""

from __future__ import annotations

import asyncio

from langgraph.runtime import Runtime

from judge.agent.context import RunContext
from judge.agent.nodes.guard import guarded
from judge.agent.panel import combine
from judge.agent.state import JudgeState
from judge.agent.work import WorkItem, WorkOutcome
from skills.types import Exemplar, MemoryContext


async def run_skill(task: dict, runtime: Runtime[RunContext]) -> JudgeState:
    """Run one item; the outcome lands in the reducer-annotated ``outcomes`` key."""
    ctx = runtime.context
    item: WorkItem = task["item"]
    skill = ctx.skill(item.skill)
    exemplars: tuple[Exemplar, ...] = ()
    memory: MemoryContext | None = None
    card = skill.card
    category = ctx.submission.task.category.value
    if card.kind == "subjective-rubric" and ctx.exemplars is not None:
        query = {
            "category": category,
            "prompt": ctx.submission.prompt,
            "image": ctx.pil_images[item.image] if item.image is not None else None,
            "image_key": item.image,
        }
        if ctx.backend == "local":
            memory = await ctx.exemplars.memory_context(card, **query)
        else:
            exemplars = await ctx.exemplars.for_card(card, **query)
    inp = ctx.skill_input(
        modality=item.modality,
        image=item.image,
        checks=item.checks,
        exemplars=exemplars,
        memory=memory,
        memory_name=card.memory_for(category),
    )
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
                agreement=merged.agreement,
            )
        ]
    }
