"""A clock a test sets and moves, for the service's rate limits (``create_app(clock=...)``,
``live_service(..., clock=...)``): a test starts mid-window instead of sleeping past a
boundary of the wall clock, and crosses a boundary on purpose with :meth:`FakeClock.advance`.

Example:
    >>> clock = FakeClock.at(minute_second=10)
    >>> clock() % 60
    10.0
    >>> clock.advance(55)
    >>> clock() % 60
    5.0
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

EPOCH_HOUR = 1_800_000_000.0
"""A whole hour (2027-01-15 08:00 UTC): the start of a minute and of an hour."""


@dataclass
class FakeClock:
    """Seconds since the epoch, moved only by :meth:`advance` (thread-safe: the service reads
    it on its own thread)."""

    now: float = EPOCH_HOUR
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def at(cls, *, hour_second: float = 0.0, minute_second: float = 0.0) -> FakeClock:
        """A clock ``hour_second`` into an hour, or ``minute_second`` into its first minute."""
        return cls(EPOCH_HOUR + hour_second + minute_second)

    def __call__(self) -> float:
        with self._lock:
            return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock on by ``seconds``."""
        with self._lock:
            self.now += seconds
