"""The ``run_work`` node: the planned items, each run on every judge model of the panel
(and, when a confidence method is asked for, its estimate: :mod:`judge.confidence`).

All of a request's items go to one graph task, which runs them concurrently (at most
``graph_concurrency`` at once). A task per item would do the same work but spend the graph's
per-task bookkeeping (task ids, configs, callbacks, writes) on every model call. Outcomes come
back in plan order, as the items' own tasks returned them.
"""

from __future__ import annotations

import asyncio

from langgraph.runtime import Runtime

from judge.agent.context import RunContext
from judge.agent.nodes.guard import guarded, guarded_input
from judge.agent.panel import combine
from judge.agent.state import JudgeState, WorkTask
from judge.agent.work import WorkItem, WorkOutcome
from skills.types import SkillOutput


async def run_work(task: WorkTask, runtime: Runtime[RunContext]) -> JudgeState:
    """Run the task's items; their outcomes land in the reducer-annotated ``outcomes`` key."""
    ctx = runtime.context
    slots = asyncio.Semaphore(ctx.settings.graph_concurrency)

    async def bounded(item: WorkItem) -> WorkOutcome:
        async with slots:
            return await run_item(item, ctx)

    return {"outcomes": list(await asyncio.gather(*(bounded(i) for i in task["items"])))}


async def run_item(item: WorkItem, ctx: RunContext) -> WorkOutcome:
    """One item on every model of the panel, the answers combined."""
    skill = ctx.skill(item.skill)
    inp = await guarded_input(skill, item.checks, lambda: ctx.mode.skill_input(ctx, item))
    if isinstance(inp, SkillOutput):  # the input could not be built: unscored, with the cause
        return WorkOutcome(item=item, output=inp)
    models = ctx.models
    estimator = ctx.confidence.estimator(ctx, item) if ctx.confidence is not None else None
    client = estimator.client if estimator is not None else ctx.client
    calls = [guarded(skill, inp, client(m)) for m in models]
    # one judge model (the usual case): awaited here, without a task for it
    outputs = [await calls[0]] if len(calls) == 1 else list(await asyncio.gather(*calls))
    merged = combine(models, outputs)
    ballots = {} if estimator is None else await estimator.ballots(skill, inp, outputs, merged)
    return WorkOutcome(
        item=item,
        output=merged.output,
        votes_scores=merged.votes_scores,
        votes_verdicts=merged.votes_verdicts,
        votes_choices=merged.votes_choices,
        agreement=merged.agreement,
        ballots=ballots,
    )
