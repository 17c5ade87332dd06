"""The event loop of every blocking entry point: uvloop's, the loop the service runs on.

``judge serve`` and ``judge worker`` run on uvloop (libuv); :func:`run` gives the in-process
entry points (``judge.score`` and the other one-call functions, ``Judge.score``,
``Judge.compare``) and the CLI verbs the same loop, so a submission costs the same event-loop
CPU wherever it is judged.

Example:
    >>> async def add(a: int, b: int) -> int:
    ...     return a + b
    >>> run(add(1, 2))
    3
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, TypeVar

import uvloop

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion on a fresh uvloop event loop (like ``asyncio.run``)."""
    return uvloop.run(coro)
