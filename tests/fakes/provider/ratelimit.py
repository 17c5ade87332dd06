"""A server-side rate limit for the fake providers: requests per second, as a token bucket.

With ``rate_limit = R`` the bucket holds ``burst`` tokens (default ``R``: one second's worth)
and refills at ``R`` a second; a call (chat, image generation or edit) takes a token or is
refused at once with HTTP 429 (``Retry-After`` in seconds and ``retry-after-ms``, the
provider's error JSON). Every answered
call carries OpenAI's rate-limit headers: ``x-ratelimit-limit-requests`` (the bucket size),
``x-ratelimit-remaining-requests`` and ``x-ratelimit-reset-requests`` (time until the bucket
is full again, e.g. ``"0.25s"``). ``rate_limit = 0`` turns it off (no headers).

Example:
    >>> bucket = RateLimit(rate=2.0, clock=lambda: 0.0)
    >>> [bucket.take().allowed for _ in range(3)]
    [True, True, False]
    >>> bucket.refused
    1
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Verdict:
    """One call's fate under the limit and the headers that tell the client about it."""

    allowed: bool
    limit: int
    remaining: int
    reset_s: float
    retry_after_s: float = 0.0

    def headers(self) -> dict[str, str]:
        """The rate-limit headers of the response."""
        out = {
            "x-ratelimit-limit-requests": str(self.limit),
            "x-ratelimit-remaining-requests": str(self.remaining),
            "x-ratelimit-reset-requests": f"{self.reset_s:.3f}s",
        }
        if not self.allowed:
            out["retry-after"] = str(max(1, math.ceil(self.retry_after_s)))
            out["retry-after-ms"] = str(max(1, round(1000 * self.retry_after_s)))
        return out


class RateLimit:
    """A thread-safe token bucket; ``rate`` 0 lets everything through."""

    def __init__(
        self,
        rate: float = 0.0,
        burst: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self._lock = threading.Lock()
        self._clock = clock
        self.refused = 0
        self.configure(rate, burst)

    def configure(self, rate: float, burst: float | None = None) -> None:
        """Set requests per second (and the bucket size); the bucket starts full."""
        if rate < 0 or (burst is not None and burst < 1):
            raise ValueError(f"rate_limit must be >= 0 and burst >= 1, got {rate}, {burst}")
        with self._lock:
            self.rate = float(rate)
            self.burst = float(burst if burst is not None else max(1.0, rate))
            self._tokens = self.burst
            self._at = self._clock()

    def take(self) -> Verdict:
        """Take a token for one call (or refuse it)."""
        with self._lock:
            now = self._clock()
            if self.rate <= 0:
                return Verdict(True, 0, 0, 0.0)
            self._tokens = min(self.burst, self._tokens + (now - self._at) * self.rate)
            self._at = now
            allowed = self._tokens >= 1.0
            if allowed:
                self._tokens -= 1.0
            else:
                self.refused += 1
            reset = (self.burst - self._tokens) / self.rate
            wait = 0.0 if allowed else (1.0 - self._tokens) / self.rate
            return Verdict(allowed, int(self.burst), int(self._tokens), reset, wait)

    @property
    def active(self) -> bool:
        return self.rate > 0

    def reset(self) -> None:
        """Refill the bucket and forget the refusals (the rate stays)."""
        with self._lock:
            self._tokens = self.burst
            self._at = self._clock()
            self.refused = 0
