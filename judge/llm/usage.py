"""Per-request accounting of model calls, tokens, cost and cache hits.

Example:
    >>> m = UsageMeter(); m.record_call(10, 5, 0.001); m.cache_hits += 1
    >>> m.snapshot()["llm_calls"], m.snapshot()["cache_hits"]
    (1, 1)
"""

from __future__ import annotations

from judge.domain.result import Usage


class UsageMeter(Usage):
    """The counters of :class:`~judge.domain.result.Usage`, counted as one submission's calls
    happen (the event loop is single-threaded, so no lock is needed); its ``latency_s`` is
    the engine's to measure, so the meter leaves it out."""

    def record_call(self, prompt_tokens: int, completion_tokens: int, cost: float) -> None:
        """Add one provider round trip."""
        self.llm_calls += 1
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        self.cost_usd += cost

    def snapshot(self) -> dict:
        """The counts as a plain dict (cost rounded to micro-dollars)."""
        out = self.model_dump(exclude={"latency_s"})
        out["cost_usd"] = round(self.cost_usd, 6)
        if self.confidence_cost_usd is not None:
            out["confidence_cost_usd"] = round(self.confidence_cost_usd, 6)
        return out
