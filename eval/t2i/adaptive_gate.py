"""The calls-in-flight limit of one image model (a T2I backend or an editor): the judge's
adaptive limit (:class:`judge.llm.adaptive.AdaptiveLimit`: additive increase, multiplicative
decrease on 429 / "overloaded" / timeouts, a pause for the wait a ``retry-after`` names, a
restart one call at a time), with the entry's ``concurrency`` as its ceiling.

``async with gate:`` takes a slot and gives it back with what the call said: no exception is
a success (the limit may grow back towards the ceiling), a provider exception is read by
:func:`judge.llm.retry.throttle_cause` and :func:`judge.llm.ratelimit_headers.headers_of`
(a throttle cuts the limit; a named wait pauses new calls).

Example:
    >>> import asyncio
    >>> async def demo():
    ...     gate = AdaptiveGate("demo", ceiling=4)
    ...     async with gate:
    ...         pass
    ...     return gate.limit.limit, gate.limit.ceiling
    >>> asyncio.run(demo())
    (4.0, 4)
"""

from __future__ import annotations

import asyncio
from types import TracebackType

from judge.llm.adaptive import AdaptiveLimit, Ticket
from judge.llm.ratelimit_headers import headers_of
from judge.llm.retry import throttle_cause


class AdaptiveGate:
    """An async context manager over an :class:`AdaptiveLimit` (one per event loop)."""

    def __init__(self, route: str, ceiling: int):
        self.limit = AdaptiveLimit(route, ceiling, start=ceiling)
        self._tickets: dict[asyncio.Task, list[Ticket]] = {}

    async def __aenter__(self) -> AdaptiveGate:
        ticket = await self.limit.acquire()
        task = asyncio.current_task()
        assert task is not None
        self._tickets.setdefault(task, []).append(ticket)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        held = self._tickets[task]
        ticket = held.pop()
        if not held:
            del self._tickets[task]
        if exc is None:
            self.limit.release(ticket, ok=True)
        else:
            self.limit.release(ticket, throttle=throttle_cause(exc), headers=headers_of(exc))
