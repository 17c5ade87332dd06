"""Probes in Redis: options, the step journal, images, the tree snapshot and overrides.

Keys (all expire ``batch_ttl_s`` after the last write)::

    judge:probe:{id}:meta       hash   owner, params (JSON), backend, status, error,
                                       created_at, finished_at, plan (JSON), spent (JSON):
                                       an api.probes.record.ProbeRecord
    judge:probe:{id}:journal    hash   step key -> JSON value (what a resumed run skips)
    judge:probe:{id}:images     hash   images/<sha>.png -> PNG bytes
    judge:probe:{id}:tree       string the latest exported tree (JSON)
    judge:probe:{id}:overrides  hash   "<node>/<test>/<image>" -> {"verdict", "who", "when"}
    judge:probes:active         set    ids of probes not finished yet (re-queued if their job
                                       is lost)
    judge:probes:running:{owner} set   the owner's running probes (the per-key cap)
    judge:probes:owner:{owner}  zset   the owner's probe ids by creation time (listing)

Status: ``running`` until the probe ends as ``done``, ``failed``, ``stopped`` (its budget ran
out) or ``cancelled`` (``DELETE``); the first end wins (:meth:`ProbeStore.finish` changes only a
running probe), so a worker finishing late never overwrites a cancellation.

Example::

    store = ProbeStore(redis, ttl_s=7 * 24 * 3600)
    probe_id = await store.create(params.model_dump(), backend="flux", owner=owner_tag(key))
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import redis.asyncio as aredis

from api.probes.record import ProbeRecord
from eval.probing.storage import image_name
from eval.probing.tree import Override

ACTIVE = "judge:probes:active"
FINAL = ("done", "failed", "stopped", "cancelled")

# KEYS: meta, active, running-set, owner-zset   ARGV: id, cap, now, ttl, field, value, ...
# -> 1 created, 0 the owner already runs `cap` probes
_CREATE = """
if redis.call('SCARD', KEYS[3]) >= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[1])
redis.call('EXPIRE', KEYS[3], tonumber(ARGV[4]))
redis.call('ZADD', KEYS[4], tonumber(ARGV[3]), ARGV[1])
redis.call('EXPIRE', KEYS[4], tonumber(ARGV[4]))
return 1
"""

# KEYS: meta, active, running-set   ARGV: id, status, now, error
# -> 1 finished now, 0 it was not running (finished, cancelled or gone)
_FINISH = """
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'finished_at', ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'error', ARGV[4]) end
redis.call('SREM', KEYS[2], ARGV[1])
redis.call('SREM', KEYS[3], ARGV[1])
return 1
"""


def _s(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


def running_key(owner: str) -> str:
    """The set of ``owner``'s running probes."""
    return f"judge:probes:running:{owner}"


def owner_key(owner: str) -> str:
    """The sorted set of ``owner``'s probes by creation time."""
    return f"judge:probes:owner:{owner}"


def is_probe_id(value: str) -> bool:
    """True for a 32-character lowercase hex id."""
    return len(value) == 32 and all(c in "0123456789abcdef" for c in value)


class ProbeStore:
    """Reads and writes of probes (API routes and runners)."""

    def __init__(self, client: aredis.Redis, ttl_s: int):
        self.client = client
        self.ttl_s = ttl_s

    @staticmethod
    def key(probe_id: str, part: str) -> str:
        return f"judge:probe:{probe_id}:{part}"

    async def create(
        self,
        params: dict[str, Any],
        backend: str,
        owner: str,
        *,
        cap: int = 1_000_000,
        plan: dict[str, Any] | None = None,
    ) -> str | None:
        """Store a new running probe and return its id; None when ``owner`` already has
        ``cap`` probes running (checked and counted atomically)."""
        await self._forget_finished(owner)
        probe_id = uuid.uuid4().hex
        now = time.time()
        record = ProbeRecord(owner=owner, params=params, backend=backend, status="running",
                             created_at=now, plan=plan or {}, spent={})  # fmt: skip
        fields = [x for kv in record.hash_fields().items() for x in kv]
        keys = [self.key(probe_id, "meta"), ACTIVE, running_key(owner), owner_key(owner)]
        args = [probe_id, cap, now, self.ttl_s, *fields]
        created = await self.client.eval(_CREATE, len(keys), *keys, *args)
        return probe_id if int(created) == 1 else None

    async def running(self, owner: str) -> int:
        """How many probes ``owner`` has running."""
        await self._forget_finished(owner)
        return int(await self.client.scard(running_key(owner)))

    async def _forget_finished(self, owner: str) -> None:
        """Drop ids of expired or finished probes from the owner's running set."""
        for raw in await self.client.smembers(running_key(owner)):
            probe_id = _s(raw) or ""
            status = _s(await self.client.hget(self.key(probe_id, "meta"), "status"))
            if status != "running":
                await self.client.srem(running_key(owner), probe_id)

    async def listing(self, owner: str, limit: int = 100) -> list[dict[str, Any]]:
        """The owner's probes, newest first: ``{"id", "status", "topic", "backend",
        "created_at"}`` (expired ones are skipped)."""
        ids = await self.client.zrevrange(owner_key(owner), 0, limit - 1)
        out = []
        for raw in ids:
            probe_id = _s(raw) or ""
            rec = await self.meta(probe_id, owner)
            if rec is None:
                continue
            out.append(
                {
                    "id": probe_id,
                    "status": rec.status,
                    "topic": rec.params.get("topic"),
                    "backend": rec.backend,
                    "created_at": rec.created_at,
                }
            )
        return out

    async def meta(self, probe_id: str, owner: str | None = None) -> ProbeRecord | None:
        """The probe's record; None when it is unknown, expired or (with ``owner``) not
        ``owner``'s."""
        raw = await self.client.hgetall(self.key(probe_id, "meta"))
        if not raw:
            return None
        record = ProbeRecord.from_hash(raw)
        return None if owner is not None and record.owner != owner else record

    async def finish(self, probe_id: str, status: str, error: str | None = None) -> bool:
        """End a running probe as ``status`` (one of :data:`FINAL`); False when it was not
        running any more (the first end wins)."""
        owner = _s(await self.client.hget(self.key(probe_id, "meta"), "owner")) or ""
        keys = [self.key(probe_id, "meta"), ACTIVE, running_key(owner)]
        args = [probe_id, status, repr(time.time()), (error or "")[:1000]]
        return int(await self.client.eval(_FINISH, len(keys), *keys, *args)) == 1

    async def save_spent(self, probe_id: str, spent: dict[str, Any]) -> None:
        """Store what the probe has spent so far (a resumed run starts from it)."""
        name = self.key(probe_id, "meta")
        if await self.client.exists(name):  # never re-create an expired probe without a TTL
            await self.client.hset(name, "spent", json.dumps(spent))

    async def active(self) -> list[str]:
        return sorted(_s(x) or "" for x in await self.client.smembers(ACTIVE))

    async def save_tree(self, probe_id: str, tree: dict[str, Any]) -> None:
        key = self.key(probe_id, "tree")
        await self.client.set(key, json.dumps(tree), ex=self.ttl_s)

    async def tree(self, probe_id: str) -> dict[str, Any] | None:
        raw = await self.client.get(self.key(probe_id, "tree"))
        return json.loads(raw) if raw else None

    async def overrides(self, probe_id: str) -> dict[str, Override]:
        raw = await self.client.hgetall(self.key(probe_id, "overrides"))
        return {_s(k): Override.model_validate_json(v) for k, v in raw.items()}  # type: ignore[misc]  # types-redis types hgetall loosely

    async def put_override(self, probe_id: str, key: str, override: Override) -> None:
        name = self.key(probe_id, "overrides")
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(name, key, override.model_dump_json())
            pipe.expire(name, self.ttl_s)
            await pipe.execute()

    async def image(self, probe_id: str, ref: str) -> bytes | None:
        return await self.client.hget(self.key(probe_id, "images"), ref)


class RedisJournal:
    """A probe's step journal in a Redis hash (the store side of :mod:`eval.kit.journal`)."""

    def __init__(self, store: ProbeStore, probe_id: str):
        self.client = store.client
        self.name = store.key(probe_id, "journal")
        self.ttl_s = store.ttl_s

    async def aget(self, key: str) -> Any | None:
        raw = await self.client.hget(self.name, key)
        return json.loads(raw) if raw is not None else None

    async def aput(self, key: str, value: Any) -> None:
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(self.name, key, json.dumps(value))
            pipe.expire(self.name, self.ttl_s)
            await pipe.execute()


class RedisImages:
    """A probe's images in a Redis hash, by content-addressed name."""

    def __init__(self, store: ProbeStore, probe_id: str):
        self.client = store.client
        self.name = store.key(probe_id, "images")
        self.ttl_s = store.ttl_s

    async def put(self, png: bytes) -> str:
        ref = f"images/{image_name(png)}"
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hsetnx(self.name, ref, png)
            pipe.expire(self.name, self.ttl_s)
            await pipe.execute()
        return ref
