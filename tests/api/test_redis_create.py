"""create_if_absent against a real redis-server: a record is written once, whole; a second
creation of the same id, or a race of many, leaves exactly the first record."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis.asyncio as aredis

from api.core.redis_create import create_if_absent
from api.core.redis_embedded import EmbeddedRedis


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with EmbeddedRedis(Path(tmp_path_factory.mktemp("create-redis"))) as url:
        yield url


def writer(rid: str, who: str):
    def write(pipe) -> None:
        pipe.set(f"r:{rid}:meta", who)
        pipe.set(f"r:{rid}:owner", who)
        pipe.sadd(f"r:{rid}:codes", f"{who}-1", f"{who}-2")

    return write


async def test_created_once_and_kept(redis_url: str) -> None:
    redis = aredis.Redis.from_url(redis_url)
    try:
        assert await create_if_absent(redis, "r:one:meta", writer("one", "first"))
        assert not await create_if_absent(redis, "r:one:meta", writer("one", "second"))
        assert await redis.get("r:one:meta") == b"first" == await redis.get("r:one:owner")
        assert await redis.smembers("r:one:codes") == {b"first-1", b"first-2"}
    finally:
        await redis.aclose()


async def test_a_race_leaves_exactly_one_whole_record(redis_url: str) -> None:
    clients = [aredis.Redis.from_url(redis_url) for _ in range(8)]
    try:
        won = await asyncio.gather(
            *(
                create_if_absent(c, "r:race:meta", writer("race", f"w{i}"))
                for i, c in enumerate(clients)
            )
        )
        assert sum(won) == 1
        winner = f"w{won.index(True)}".encode()
        assert await clients[0].get("r:race:meta") == winner
        assert await clients[0].get("r:race:owner") == winner
        assert await clients[0].smembers("r:race:codes") == {winner + b"-1", winner + b"-2"}
    finally:
        for c in clients:
            await c.aclose()
