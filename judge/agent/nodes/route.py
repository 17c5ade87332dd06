"""The ``route`` node asks the request's mode for its work; ``dispatch`` fans it out.

With speculative safety (the default) the safety gate runs in the same step as every
skill, so it is off the critical path; a blocked submission's scores are discarded.
"""

from __future__ import annotations

from langgraph.runtime import Runtime
from langgraph.types import Send

from judge.agent.context import RunContext
from judge.agent.state import JudgeState


async def route(state: JudgeState, runtime: Runtime[RunContext]) -> JudgeState:
    """Plan every skill invocation for this request (the mode decides). A coroutine, as
    every node and edge of the graph: LangGraph runs a plain function in a thread, a hop per
    request that costs more than the function."""
    ctx = runtime.context
    return {"work": ctx.mode.plan(ctx)}


def work_sends(state: JudgeState) -> list[Send]:
    """One ``run_work`` task with every planned item (none when nothing is planned)."""
    work = state.get("work", [])
    return [Send("run_work", {"items": work})] if work else []


async def dispatch(state: JudgeState, runtime: Runtime[RunContext]) -> list[Send]:
    """Fan out: the safety gate alone, or the gate and all work at once (speculative)."""
    gate = [Send("safety", {})]
    if runtime.context.settings.speculative_safety:
        return gate + work_sends(state)
    return gate
