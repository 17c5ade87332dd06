"""The extra model calls a confidence method makes, accounted in the result's ``usage``:
counted like any call (``llm_calls``, tokens, ``cost_usd``) and also in
``confidence_calls`` and ``confidence_cost_usd``.

Example:
    >>> from judge.llm.usage import UsageMeter
    >>> main = UsageMeter(); open_confidence_usage(main)
    >>> side = SideMeter(main); side.record_call(10, 5, 0.002); side.retries += 1
    >>> main.llm_calls, main.confidence_calls, main.confidence_cost_usd, main.retries
    (1, 1, 0.002, 1)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from judge.llm.usage import UsageMeter

if TYPE_CHECKING:
    from judge.agent.context import RunContext
    from judge.llm.gateway import BoundClient


def open_confidence_usage(meter: UsageMeter) -> None:
    """Start the confidence counters at zero (they stay absent when no method is asked)."""
    if meter.confidence_calls is None:
        meter.confidence_calls = 0
        meter.confidence_cost_usd = 0.0


class SideMeter:
    """A meter that counts into the request's meter and, besides, into its confidence
    counters; everything else (retries, re-asks, cache hits) goes to the request's meter."""

    def __init__(self, main: UsageMeter):
        object.__setattr__(self, "_main", main)

    def record_call(self, prompt_tokens: int, completion_tokens: int, cost: float) -> None:
        main: UsageMeter = self._main
        main.record_call(prompt_tokens, completion_tokens, cost)
        main.confidence_calls = (main.confidence_calls or 0) + 1
        main.confidence_cost_usd = (main.confidence_cost_usd or 0.0) + cost

    def __getattr__(self, name: str) -> Any:
        return getattr(self._main, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._main, name, value)


def extra_client(ctx: RunContext, model: str, extra: dict[str, Any] | None = None) -> BoundClient:
    """A client of ``model`` whose calls count as confidence calls."""
    meter = cast(UsageMeter, SideMeter(ctx.meter))
    return ctx.gateway.client(model, meter, ctx.settings).with_call_options(extra=extra)
