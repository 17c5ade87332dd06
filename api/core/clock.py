"""The clock the service's rate limits read: their minute and hour windows and the
``Retry-After`` they answer with.

A clock is any callable returning seconds since the epoch (``time.time`` by default). The app
holds one, set once by ``create_app(clock=...)``, and every limiter takes it as a parameter, so
a test can put the service at any second of a minute or an hour, and move it on, instead of
waiting for the wall clock to leave a window boundary.

Example:
    >>> window(lambda: 3_599.5, 3600), seconds_left(lambda: 3_599.5, 3600)
    (0, 1)
    >>> window(lambda: 120.0, 60), seconds_left(lambda: 120.0, 60)
    (2, 60)
"""

from __future__ import annotations

import time
from collections.abc import Callable

Clock = Callable[[], float]
"""Seconds since the epoch, as ``time.time`` returns them."""

WALL_CLOCK: Clock = time.time


def window(clock: Clock, length_s: int) -> int:
    """The number of the ``length_s``-second window ``clock`` is in (a limiter's counter key)."""
    return int(clock() // length_s)


def seconds_left(clock: Clock, length_s: int) -> int:
    """Whole seconds until the next window starts, 1 to ``length_s`` (a ``Retry-After``)."""
    return length_s - int(clock()) % length_s
