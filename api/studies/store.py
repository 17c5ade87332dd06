"""The Redis layout of studies and its atomic operations.

Keys (all under ``judge:study:<id>:``):
``meta`` (JSON of :class:`api.studies.record.StudyRecord`: name, tasks, limits, created_at),
``codes`` (set of participant codes),
``target:<task>`` (hash: data, mime), ``p:<code>`` (hash task → JSON {prompt, submitted_at}),
``rev:<code>`` (hash task → revision count), ``h:<code>`` (list: every submission, oldest first).
A submission updates ``p``, ``rev`` and ``h`` in one Lua script, so a resubmission replaces
only that participant's prompt for that task and the history keeps every version.

Example::

    store = StudyStore(redis)
    await store.create(record, codes, images)        # False when the id is taken
    await store.submit("demo", "K7QM-3XPD-W9RT", "oe_1", "a quiet harbour at dusk")
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import redis.asyncio as aredis
from redis.exceptions import WatchError

from api.core.redis_create import create_if_absent
from api.studies.record import StudyRecord

PREFIX = "judge:study:"
_SUBMIT = """
local rev = redis.call('HINCRBY', KEYS[3], ARGV[1], 1)
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('RPUSH', KEYS[2], ARGV[3])
return {rev, redis.call('HLEN', KEYS[1])}
"""


def now_iso() -> str:
    """The current UTC time, ISO 8601 with microseconds and ``Z``."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _key(study: str, *parts: str) -> str:
    return PREFIX + ":".join((study, *parts))


class StudyStore:
    """Studies, codes, target images and prompts in the service's Redis."""

    def __init__(self, redis: aredis.Redis):
        self.redis = redis
        self._submit = redis.register_script(_SUBMIT)

    async def create(
        self, record: StudyRecord, codes: list[str], images: dict[str, tuple[bytes, str]]
    ) -> bool:
        """Write a new study in one transaction; False (nothing written) when the id exists."""
        sid = record.id

        def write(pipe: Any) -> None:
            pipe.set(_key(sid, "meta"), record.dumps())
            pipe.sadd(_key(sid, "codes"), *codes)
            for task_id, (data, mime) in images.items():
                pipe.hset(_key(sid, "target", task_id), mapping={"data": data, "mime": mime})

        return await create_if_absent(self.redis, _key(sid, "meta"), write)

    async def add_codes(self, study: str, codes: list[str]) -> list[str]:
        """Add participant codes; the ones already present (none added then), if any."""
        key = _key(study, "codes")
        async with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(key)
                    taken = [c for c in codes if await pipe.sismember(key, c)]
                    if taken:
                        return taken
                    pipe.multi()
                    pipe.sadd(key, *codes)
                    await pipe.execute()
                    return []
                except WatchError:
                    continue

    async def meta(self, study: str) -> StudyRecord | None:
        """The study's record, or None when unknown."""
        raw = await self.redis.get(_key(study, "meta"))
        return StudyRecord.loads(raw) if raw else None

    async def is_participant(self, study: str, code: str) -> bool:
        return bool(await self.redis.sismember(_key(study, "codes"), code))

    async def codes(self, study: str) -> list[str]:
        return sorted(c.decode() for c in await self.redis.smembers(_key(study, "codes")))

    async def target(self, study: str, task_id: str) -> tuple[bytes, str] | None:
        """A task's target image and its MIME type."""
        got = await self.redis.hgetall(_key(study, "target", task_id))
        if not got:
            return None
        return got[b"data"], got[b"mime"].decode()

    async def prompts(self, study: str, code: str) -> dict[str, dict[str, str]]:
        """``{task_id: {"prompt", "submitted_at"}}`` of one participant (latest versions)."""
        got = await self.redis.hgetall(_key(study, "p", code))
        return {k.decode(): json.loads(v) for k, v in got.items()}

    async def answered(self, study: str, code: str) -> int:
        return int(await self.redis.hlen(_key(study, "p", code)))

    async def submit(
        self, study: str, code: str, task_id: str, prompt: str
    ) -> tuple[str, int, int]:
        """Store one prompt atomically; ``(submitted_at, revision, answered)``."""
        at = now_iso()
        current = json.dumps({"prompt": prompt, "submitted_at": at})
        entry = json.dumps({"task_id": task_id, "prompt": prompt, "submitted_at": at})
        keys = [_key(study, "p", code), _key(study, "h", code), _key(study, "rev", code)]
        rev, answered = await self._submit(keys=keys, args=[task_id, current, entry])
        return at, int(rev), int(answered)

    async def history(self, study: str, code: str) -> list[dict[str, str]]:
        """Every submission of a participant, oldest first."""
        return [json.loads(x) for x in await self.redis.lrange(_key(study, "h", code), 0, -1)]
