"""The threads that prepare requests (validation, image decoding and encoding) off the event
loop: a small pool per process, not asyncio's default executor.

Preparing a request is CPU work (a 1024² PNG takes about 20 ms to decode). asyncio's default
executor runs up to ``cpu_count + 4`` of them at once in each process; on a busy service with
several worker processes, a dozen decodes then share two cores with the event loops.
``prepare_threads`` (``JUDGE_PREPARE_THREADS``, default 1) bounds them, and the image buffers
they hold, per process; raise it for a process that has cores to spare beside its event loop.

Example:
    >>> import asyncio
    >>> asyncio.run(in_prepare_pool(1, sum, [1, 2, 3]))
    6
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

_POOLS: dict[int, ThreadPoolExecutor] = {}
_LOCK = threading.Lock()


def prepare_pool(threads: int) -> ThreadPoolExecutor:
    """This process's pool of ``threads`` preparing threads (made on first use)."""
    with _LOCK:
        pool = _POOLS.get(threads)
        if pool is None:
            pool = _POOLS[threads] = ThreadPoolExecutor(
                max_workers=threads, thread_name_prefix=f"judge-prepare-{threads}"
            )
        return pool


async def in_prepare_pool(threads: int, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` on the pool, in a copy of the caller's context (as
    ``asyncio.to_thread`` runs it: the request's pixel ledger and logging context apply)."""
    call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(prepare_pool(threads), call)
