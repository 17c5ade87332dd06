"""The LLM gateway: every model call goes through litellm here (DESIGN.md §4)."""
