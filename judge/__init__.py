"""The judge engine: domain model, LangGraph agent, LLM gateway, configuration and CLI.

Example:
    >>> from judge import Judge
    >>> Judge(model="openai/gpt-4o").settings.checkpoint_batching
    'per_checkpoint'
"""

from __future__ import annotations

from typing import Any

__all__ = ["Judge", "JudgeSettings", "Result", "Submission"]


def __getattr__(name: str) -> Any:
    # Lazy: importing judge.domain must not pull litellm and langgraph in.
    if name == "Judge":
        from judge.engine import Judge

        return Judge
    if name == "JudgeSettings":
        from judge.config import JudgeSettings

        return JudgeSettings
    if name in ("Result", "Submission"):
        from judge import domain

        return getattr(domain, name)
    raise AttributeError(name)
