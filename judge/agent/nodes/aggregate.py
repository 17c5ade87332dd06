"""The ``aggregate`` node: the request's mode turns the outcomes into its result model."""

from __future__ import annotations

from langgraph.runtime import Runtime

from judge.agent.context import RunContext
from judge.agent.state import JudgeState


async def aggregate(state: JudgeState, runtime: Runtime[RunContext]) -> JudgeState:
    """Build the result (``Result`` for ``score``, ``ComparisonResult`` for ``compare``, …)."""
    ctx = runtime.context
    result = ctx.mode.aggregate(ctx, state.get("outcomes", []), state.get("safety"))
    return {"result": result}
