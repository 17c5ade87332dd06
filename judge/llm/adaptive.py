"""An adaptive concurrency limit per provider route: calls in flight follow what the provider
takes, not a fixed cap.

Additive increase, multiplicative decrease (the way TCP finds a link's capacity):

- **opening up**: while calls succeed and the limit is what holds them back (calls are
  waiting, or every slot is taken), each success adds one slot (slow start: the limit
  doubles every round trip) until the first throttle; after that it adds ``1 / limit`` (one
  slot a round trip);
- **backing off**: a 429, an "overloaded" 503/529, a timeout, or rate-limit headers saying
  nothing is left of the request or token window multiply the limit by ``backoff`` (0.7),
  at most once per round trip (a signal from a call that started before the last cut says
  nothing new), and hold new calls for the wait the provider names (``retry-after``, or the
  time the window takes to refill one call; at most ``max_pause_s``); headers saying less
  than 5 % is left stop the limit from growing;
- **restarting after a pause**: when the pause ends, one call starts (the *window* is 1);
  the window then opens by one more call each time the named wait passes again (the pace at
  which the provider's window refills) and by one for each success of a call started since
  the pause, until it is back at the limit. Without it, the end of a pause would let
  ``limit - in_flight`` waiting calls go at once against a provider whose window has
  refilled by about one call: all but one refused, for one cut of the limit (they all
  started before the first refusal came back, so the rest say nothing new);
- the configured ``llm_concurrency`` is an optional **ceiling**; the limit starts at
  ``min(start, ceiling)`` and never leaves ``[1, ceiling or HARD_MAX]``.

One :class:`AdaptiveLimit` exists per event loop, model and endpoint
(:meth:`LimitBoard.get`); :func:`snapshot` reads them all (``/metrics`` shows the current
limit, calls in flight and throttling events), and an observer set with
:func:`set_observer` hears every change.

Example:
    >>> import asyncio
    >>> async def demo():
    ...     lim = AdaptiveLimit("openai/gpt-4o", ceiling=None, start=4)
    ...     ticket = await lim.acquire()
    ...     lim.release(ticket, throttle="429")
    ...     return lim.limit, lim.events["429"]
    >>> asyncio.run(demo())
    (2.8, 1)
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import weakref
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass

from judge.llm.ratelimit_headers import RateHeaders

HARD_MAX = 1024
"""The limit's upper bound when no ceiling is configured (``llm_concurrency``' maximum)."""
START = 64
"""The limit a new route starts with (below the ceiling): a submission's calls all at once."""
LOW_LEFT = 0.05
"""Rate-limit headers with less than this share of the window left stop the limit growing."""

Observer = Callable[["AdaptiveLimit", str], None]
_observer: Observer | None = None


def set_observer(observer: Observer | None) -> None:
    """Call ``observer(limit, event)`` on every change (event: ``"limit"`` when the limit or
    the window moved, or a throttle cause); the service feeds ``/metrics`` with it. While one
    is set, a paused or restarting limit keeps a timer even with no call waiting, so the
    observer hears the window open with time alone. ``None`` removes it."""
    global _observer
    _observer = observer


@dataclass(frozen=True)
class Ticket:
    """One granted slot: when it was granted (to tell old signals from new ones)."""

    started: float


class AdaptiveLimit:
    """The concurrency limit of one route (model + endpoint) on one event loop."""

    def __init__(
        self,
        route: str,
        ceiling: int | None,
        *,
        start: int = START,
        backoff: float = 0.7,
        max_pause_s: float = 20.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.route = route
        self.ceiling = min(ceiling, HARD_MAX) if ceiling else HARD_MAX
        self.limit = float(min(start, self.ceiling))
        self.backoff = backoff
        self.max_pause_s = max_pause_s
        self.in_flight = 0
        self.slow_start = True
        self.events: Counter[str] = Counter()
        self._last_cut = float("-inf")
        self._resume_at = 0.0
        self._clock = clock
        self.restart: float | None = None
        """While restarting after a pause: its calls' successes, plus the first call."""
        self._restart_at = float("-inf")
        self._pace = 1.0
        self._shown_window = int(self.limit)  # the window the observer last heard of
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._timer: asyncio.TimerHandle | None = None

    # -- slots -------------------------------------------------------------------------------
    def window(self) -> int:
        """How many calls may be in flight now: the limit, or the restart window after a
        pause while it is smaller (one call, one more per success since the pause and one
        more each time the provider's named wait passes again)."""
        if self.restart is None:
            return int(self.limit)
        grown = self.restart + max(0.0, self._clock() - self._resume_at) / self._pace
        if grown >= self.limit:
            self.restart = None  # back at the limit: the restart is over
            return int(self.limit)
        return int(grown)

    def _paused_for(self) -> float:
        return self._resume_at - self._clock()

    def _pause(self, wait_s: float, ticket: Ticket) -> None:
        """Hold new calls for ``wait_s`` (capped), then restart from one call in flight; a
        signal from a call that started before the current restart only lengthens the wait."""
        now = self._clock()
        wait = min(wait_s, self.max_pause_s)
        self._resume_at = max(self._resume_at, now + wait)
        if self.restart is None or ticket.started >= self._restart_at:
            self.restart = 1.0
            self._restart_at = now
            self._pace = max(wait, 0.001)

    async def acquire(self) -> Ticket:
        """Wait for a slot (first come, first served)."""
        if not self._waiters and self.in_flight < self.window() and self._paused_for() <= 0:
            self.in_flight += 1
            return Ticket(self._clock())
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        self._wake()
        try:
            await fut  # :meth:`_wake` hands the slot over (``in_flight`` already counts it)
        except BaseException:
            if fut.done() and not fut.cancelled():
                self.in_flight -= 1  # granted, but the caller is gone: pass the slot on
            elif fut in self._waiters:
                self._waiters.remove(fut)
            self._wake()
            raise
        return Ticket(self._clock())

    def _wake(self) -> None:
        """Hand free slots to waiters, in order; while paused, come back when the pause ends."""
        if self.window() != self._shown_window:
            self._notify("limit")
        pause = self._paused_for()
        # calls waiting, or an observer (/metrics) following the window as time opens it
        watched = bool(self._waiters) or _observer is not None
        if pause > 0:
            if watched and self._timer is None:
                self._timer = self._call_later(pause)
            return
        while self._waiters and self.in_flight < self.window():
            fut = self._waiters.popleft()
            if not fut.done():
                self.in_flight += 1
                fut.set_result(None)
        if watched and self.restart is not None and self._timer is None:
            # restarting: the window opens by one more call at the next step of the pace
            step = self._pace - (self._clock() - self._resume_at) % self._pace
            self._timer = self._call_later(step)

    def _call_later(self, delay: float) -> asyncio.TimerHandle | None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # released outside an event loop: the next call looks again
            return None
        return loop.call_later(delay, self._resume)

    def _resume(self) -> None:
        self._timer = None
        self._wake()

    def release(
        self,
        ticket: Ticket,
        *,
        ok: bool = False,
        throttle: str | None = None,
        headers: RateHeaders | None = None,
    ) -> None:
        """Give the slot back with what the call said: ``ok`` (an answer came), ``throttle``
        (a cause: ``"429"``, ``"overloaded"``, ``"timeout"``) and the rate-limit headers."""
        busy = bool(self._waiters) or self.in_flight >= self.window()
        self.in_flight -= 1
        hold = False
        if headers is not None:
            wait = headers.wait_s()
            if wait and (throttle is not None or headers.exhausted()):
                self._pause(wait, ticket)
            if throttle is None and headers.exhausted():
                throttle = "headers"
            share = headers.left_share()
            hold = share is not None and share < LOW_LEFT
        if throttle is not None:
            self._throttled(ticket, throttle)
        elif self.restart is not None:
            if ok and ticket.started >= self._restart_at:  # a call of the restart came back
                self.restart += 1
        elif ok and busy and not hold and self.limit < self.ceiling:
            before = int(self.limit)
            self.limit = min(
                self.ceiling, self.limit + (1.0 if self.slow_start else 1 / self.limit)
            )
            if int(self.limit) != before:
                self._notify("limit")
        self._wake()

    def _throttled(self, ticket: Ticket, cause: str) -> None:
        self.events[cause] += 1
        if ticket.started >= self._last_cut:  # the call saw the current limit: cut it
            self.limit = max(1.0, self.limit * self.backoff)
            self.slow_start = False
            self._last_cut = self._clock()
        self._notify(cause)

    def _notify(self, event: str) -> None:
        self._shown_window = self.window()
        if _observer is not None:
            with contextlib.suppress(Exception):  # metrics must never break a call
                _observer(self, event)


class LimitBoard:
    """The limits of one gateway: one per event loop and route."""

    def __init__(self, ceiling: int | None):
        self.ceiling = ceiling
        self._by_loop: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[str, AdaptiveLimit]
        ] = weakref.WeakKeyDictionary()
        with _BOARDS_LOCK:
            _BOARDS.add(self)

    def get(self, route: str) -> AdaptiveLimit:
        """The running loop's limit for ``route`` (created on first use)."""
        loop = asyncio.get_running_loop()
        routes = self._by_loop.get(loop)
        if routes is None:
            routes = self._by_loop[loop] = {}
        lim = routes.get(route)
        if lim is None:
            lim = routes[route] = AdaptiveLimit(route, self.ceiling)
            lim._notify("limit")
        return lim

    def limits(self) -> list[AdaptiveLimit]:
        """Every limit of this board."""
        return [lim for routes in list(self._by_loop.values()) for lim in routes.values()]


_BOARDS: weakref.WeakSet[LimitBoard] = weakref.WeakSet()
_BOARDS_LOCK = threading.Lock()


def snapshot() -> list[dict]:
    """Every live route's limit, window (calls allowed in flight now: below the limit while
    restarting after a pause), calls in flight and throttling events (for ``/metrics``).

    Example:
        >>> isinstance(snapshot(), list)
        True
    """
    with _BOARDS_LOCK:
        boards = list(_BOARDS)
    return [
        {
            "route": lim.route,
            "limit": round(lim.limit, 2),
            "window": lim.window(),
            "ceiling": lim.ceiling,
            "in_flight": lim.in_flight,
            "events": dict(lim.events),
        }
        for board in boards
        for lim in board.limits()
    ]
