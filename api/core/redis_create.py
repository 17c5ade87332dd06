"""Create a Redis record only when it does not exist yet, in one transaction.

A store writes a new record (a campaign, a study) as several keys. :func:`create_if_absent`
watches the record's guard key, and writes the keys only when the guard is absent and no
other writer created it in the meantime: two concurrent creations of one id leave exactly
one record, never a mix of both.

Example::

    created = await create_if_absent(redis, "study:s1:meta", lambda pipe: (
        pipe.set("study:s1:meta", "{}"), pipe.sadd("study:s1:codes", "c1")))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import redis.asyncio as aredis
from redis.exceptions import WatchError


async def create_if_absent(redis: aredis.Redis, guard: str, write: Callable[[Any], object]) -> bool:
    """Run ``write(pipe)`` (queueing the record's writes) and execute them atomically, unless
    ``guard`` exists; True when written, False (nothing written) when the record exists."""
    async with redis.pipeline(transaction=True) as pipe:
        try:
            await pipe.watch(guard)
            if await pipe.exists(guard):
                return False
            pipe.multi()
            write(pipe)
            await pipe.execute()
        except WatchError:  # created by another writer since the watch
            return False
    return True
