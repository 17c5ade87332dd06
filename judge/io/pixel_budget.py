"""Bounds on decoded image memory: pixels per request, and pixels held by a whole process.

A decoded RGBA image costs 4 bytes a pixel, and the engine keeps a request's images while
it is scored. :func:`pixel_ledger` opens a per-request ledger (a context variable, so it
follows the request into worker threads); every decode charges its pixels to it
(:func:`charge_pixels`, called by :func:`judge.io.images.decode_image`). The ledger refuses a
request whose images sum to more than its limit (an :class:`InputError`) and takes the
pixels from a process-wide :class:`PixelBudget`, waiting for room while other requests hold
it (:class:`DecodeBusy` after ``wait_s``); it gives everything back when the request ends.
Without an open ledger (the CLI), only the per-image limit applies.

Example:
    >>> budget = PixelBudget(100)
    >>> with pixel_ledger(60, budget, wait_s=0.1):
    ...     charge_pixels(50, "images[0]")
    ...     budget.free
    50
    >>> budget.free
    100
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from judge.errors import InputError


class DecodeBusy(RuntimeError):
    """The process's decoded-pixel budget stayed full for the whole wait; retry later."""


class PixelBudget:
    """Pixels that all concurrent requests of a process may hold decoded at once."""

    def __init__(self, total: int):
        self.total = total
        self.free = total
        self._cond = threading.Condition()

    def acquire(self, pixels: int, wait_s: float) -> None:
        """Take ``pixels``, waiting up to ``wait_s`` for room; :class:`DecodeBusy` after."""
        with self._cond:
            if not self._cond.wait_for(lambda: self.free >= pixels, timeout=wait_s):
                raise DecodeBusy(
                    f"the server is decoding too many images right now ({self.total} pixels "
                    "held); retry shortly"
                )
            self.free -= pixels

    def release(self, pixels: int) -> None:
        """Give ``pixels`` back."""
        with self._cond:
            self.free = min(self.total, self.free + pixels)
            self._cond.notify_all()


@dataclass
class _Ledger:
    limit: int
    budget: PixelBudget | None
    wait_s: float
    used: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


_LEDGER: ContextVar[_Ledger | None] = ContextVar("judge_pixel_ledger", default=None)


@contextmanager
def pixel_ledger(
    limit: int, budget: PixelBudget | None = None, wait_s: float = 30.0
) -> Iterator[None]:
    """Charge the decodes inside the block to one request (at most ``limit`` pixels)."""
    ledger = _Ledger(limit, budget, wait_s)
    token = _LEDGER.set(ledger)
    try:
        yield
    finally:
        _LEDGER.reset(token)
        if budget is not None and ledger.used:
            budget.release(ledger.used)


def charge_pixels(pixels: int, field_name: str) -> None:
    """Charge one image's ``pixels`` to the open ledger (no-op without one)."""
    ledger = _LEDGER.get()
    if ledger is None:
        return
    with ledger.lock:
        if ledger.used + pixels > ledger.limit:
            raise InputError(
                field_name,
                f"the request's images decode to more than {ledger.limit} pixels in total "
                f"({ledger.used} before this one, {pixels} in it); send fewer or smaller images",
            )
        if ledger.budget is not None:
            ledger.budget.acquire(pixels, ledger.wait_s)
        ledger.used += pixels
