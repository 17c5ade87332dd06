"""The LangGraph agent: state, per-request context, planning, nodes and the compiled graph."""
