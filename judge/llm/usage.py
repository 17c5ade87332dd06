"""Per-request accounting of model calls, tokens, cost and cache hits.

Example:
    >>> m = UsageMeter(); m.record_call(10, 5, 0.001); m.cache_hits += 1
    >>> m.snapshot()["llm_calls"], m.snapshot()["cache_hits"]
    (1, 1)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass
class UsageMeter:
    """Counts for one submission; the event loop is single-threaded, so no lock is needed."""

    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cache_hits: int = 0
    retries: int = 0
    reasks: int = 0
    failed_calls: int = 0

    def record_call(self, prompt_tokens: int, completion_tokens: int, cost: float) -> None:
        """Add one provider round trip."""
        self.llm_calls += 1
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        self.cost_usd += cost

    def snapshot(self) -> dict:
        """The counts as a plain dict (cost rounded to micro-dollars)."""
        out = asdict(self)
        out["cost_usd"] = round(self.cost_usd, 6)
        return out
