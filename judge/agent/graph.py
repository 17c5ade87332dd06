"""Graph wiring: START → route → (safety ∥ every skill and checkpoint) → aggregate → END.

With ``speculative_safety`` off the gate runs first and the work is sent only when it
passes. The graph is compiled once per process.

Example:
    >>> g = compiled_graph()
    >>> sorted(n for n in g.get_graph().nodes if not n.startswith("__"))
    ['aggregate', 'route', 'run_work', 'safety']
"""

from __future__ import annotations

from functools import cache

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from judge.agent.context import RunContext
from judge.agent.nodes.aggregate import aggregate
from judge.agent.nodes.route import dispatch, route
from judge.agent.nodes.run_work import run_work
from judge.agent.nodes.safety import after_safety, safety
from judge.agent.state import JudgeState

Graph = StateGraph[JudgeState, RunContext, JudgeState, JudgeState]


def build_graph() -> Graph:
    """The uncompiled graph (exposed for inspection and extension)."""
    g = StateGraph(JudgeState, context_schema=RunContext)
    g.add_node("route", route)
    g.add_node("safety", safety)
    # langgraph types a node's input as a protocol mypy matches only for the graph state, not
    # for the TypedDict a Send delivers (run_work reads WorkTask, not JudgeState)
    g.add_node("run_work", run_work)  # type: ignore[call-overload]  # a Send payload, see above
    g.add_node("aggregate", aggregate)
    g.add_edge(START, "route")
    g.add_conditional_edges("route", dispatch, ["safety", "run_work"])
    g.add_conditional_edges("safety", after_safety, ["run_work", "aggregate"])
    g.add_edge("run_work", "aggregate")
    g.add_edge("aggregate", END)
    return g


@cache
def compiled_graph() -> CompiledStateGraph[JudgeState, RunContext, JudgeState, JudgeState]:
    """The compiled graph, built once."""
    return build_graph().compile()
