"""Redis-backed caches for the engine: model responses (and anything keyed by strings).

Example::

    cache = RedisResponseCache(redis.asyncio.Redis.from_url(url), ttl_s=3600)
    judge = Judge(settings, cache=cache)
"""

from __future__ import annotations

import redis.asyncio as aredis


class RedisResponseCache:
    """Implements :class:`judge.llm.cache.ResponseCache` on Redis, shared by all workers."""

    def __init__(self, client: aredis.Redis, ttl_s: int = 0):
        self.client = client
        self.ttl_s = ttl_s

    async def get(self, key: str) -> str | None:
        value = await self.client.get(key)
        return value.decode() if isinstance(value, bytes) else value

    async def set(self, key: str, value: str) -> None:
        await self.client.set(key, value, ex=self.ttl_s or None)
