"""A gate at the fake provider: hold calls after they arrive so a test can see exactly how many
are in flight at once, without timing assumptions.

Two ways to close it:

- :meth:`Gate.hold` — every call waits until :meth:`Gate.open`; :meth:`Gate.wait_held` blocks
  the caller's thread until that many calls are waiting (a test sees "k calls in flight" as a
  fact, not as something a sleep made likely);
- :meth:`Gate.group` — a barrier: calls wait until ``n`` of them are waiting together, then all
  ``n`` go on. ``fake.max_in_flight == n`` afterwards proves ``n`` were in flight at once.
  If a group is not filled within ``timeout_s`` the waiting calls go on anyway, so a broken
  client fails the test's count instead of hanging it.

Example::

    with FakeProvider() as fake:
        fake.gate.group(10)                   # ten concurrent calls are held until all arrived
        ...                                   # send them
        assert fake.max_in_flight == 10
        fake.gate.open()
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter


class Gate:
    """Holds calls that reach a fake (thread-safe; the waiting happens on the fake's loop)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._mode = "open"
        self._size = 0
        self._timeout_s = 0.0
        self._waiting: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None], str]] = []

    def hold(self) -> None:
        """Hold every call from now on until :meth:`open`."""
        with self._cond:
            self._mode = "hold"

    def group(self, n: int, timeout_s: float = 60.0) -> None:
        """Let calls through only in groups of ``n`` waiting together (see the module doc)."""
        if n < 1:
            raise ValueError("a group has at least one call")
        with self._cond:
            self._mode, self._size, self._timeout_s = "group", n, timeout_s

    def open(self) -> None:
        """Let every waiting call go on and hold none from now on."""
        with self._cond:
            self._mode = "open"
            self._release_all()

    @property
    def held(self) -> int:
        """How many calls are waiting at the gate now."""
        with self._cond:
            return len(self._waiting)

    def held_by(self) -> dict[str, int]:
        """Waiting calls by the label the fake gave them (the caller's credentials)."""
        with self._cond:
            return dict(Counter(label for *_, label in self._waiting))

    def wait_held(self, n: int, timeout_s: float = 60.0) -> int:
        """Block until at least ``n`` calls are waiting (or ``timeout_s``); return how many are."""
        with self._cond:
            self._cond.wait_for(lambda: len(self._waiting) >= n, timeout=timeout_s)
            return len(self._waiting)

    async def pass_through(self, label: str = "") -> None:
        """Called by the fake's handler once a call is recorded; returns when it may go on.
        ``label`` says whose call it is (see :meth:`held_by`)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._cond:
            if self._mode == "open":
                return
            self._waiting.append((loop, future, label))
            self._cond.notify_all()
            if self._mode == "group" and len(self._waiting) >= self._size:
                self._release_all()
            timeout = self._timeout_s if self._mode == "group" else None
        try:
            await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            with self._cond:  # an unfilled group gives up: its calls go on
                self._release_all()
        finally:
            with self._cond:
                self._waiting = [w for w in self._waiting if w[1] is not future]
                self._cond.notify_all()

    def _release_all(self) -> None:
        for loop, future, _ in self._waiting:
            loop.call_soon_threadsafe(_resolve, future)
        self._waiting = []
        self._cond.notify_all()


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
