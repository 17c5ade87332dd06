"""Batches in Redis: items, per-item outcomes written exactly once, status and results.

Keys (all expire together, ``batch_ttl_s`` after submission)::

    judge:batch:{id}:meta       hash  total, created_at, owner, options (JSON), attempts,
                                      duplicates, finished_at
    judge:batch:{id}:items      hash  index -> item JSON as submitted (deleted once finished)
    judge:batch:{id}:results    hash  index -> Result JSON
    judge:batch:{id}:failures   hash  index -> {"code", "field", "message"} JSON
    judge:batch:{id}:deleted    hash  tombstone left by DELETE (owner, total, done, failed)

An item's outcome is written by one Lua script that sets it only when neither hash holds the
index yet (HSETNX across both hashes), so a job that runs twice — at-least-once delivery after a
``kill -9`` — still yields exactly one result. ``done``/``failed`` are the two hashes' lengths,
so counters can never drift from the stored outcomes.

Jobs go through arq (queue :data:`QUEUE_NAME`, function :data:`JOB_FUNCTION`, job id
``{batch}:{index}`` so a re-enqueue is a no-op); the worker side lives in :mod:`api.jobs.worker`.

Example::

    store = BatchStore(redis_client, ttl_s=7 * 24 * 3600)
    batch_id = await store.create(['{"task": ...}', ...], options={}, owner=owner_tag("key"))
    await store.enqueue(arq_pool, batch_id, total=2)
    info = await store.info(batch_id, owner_tag("key"))   # BatchInfo(status="queued", ...)
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Literal

import redis.asyncio as aredis
from arq.connections import ArqRedis
from arq.constants import default_queue_name, job_key_prefix, retry_key_prefix
from pydantic import BaseModel, Field

QUEUE_NAME = default_queue_name
"""The arq queue (a sorted set, ``arq:queue``) that batch jobs go through; ``/metrics``
reports its length as the queue depth."""
JOB_FUNCTION = "score_item"
"""The arq function name a batch item job calls."""
UNQUEUED = "judge:batches:unqueued"
"""Sorted set of batch ids stored but not yet (fully) queued, scored by creation time: the
reconciler re-queues the ones left there by a crash between storing and queueing."""
ENQUEUE_CHUNK = 100
RESULT_CHUNK = 256

Status = Literal["queued", "running", "done", "deleted"]


class BatchCreated(BaseModel):
    """The answer to ``POST /v1/batches``."""

    id: str
    total: int
    status: Status = "queued"


class BatchInfo(BaseModel):
    """The answer to ``GET /v1/batches/{id}``.

    ``done`` counts items with a result, ``failed`` items that failed for good (each still has a
    line in the results); ``progress`` is ``(done + failed) / total`` in 0..1; ``attempts``
    counts item executions started (above ``total`` after retries or a worker crash).
    """

    id: str
    status: Status
    total: int
    done: int
    failed: int
    progress: float = Field(ge=0, le=1)
    attempts: int = 0
    created_at: float | None = None
    finished_at: float | None = None


@dataclass(frozen=True)
class BatchKeys:
    """The Redis keys of one batch."""

    meta: str
    items: str
    results: str
    failures: str
    deleted: str

    @classmethod
    def of(cls, batch_id: str) -> BatchKeys:
        base = f"judge:batch:{batch_id}"
        return cls(
            f"{base}:meta",
            f"{base}:items",
            f"{base}:results",
            f"{base}:failures",
            f"{base}:deleted",
        )


def owner_tag(api_key: str) -> str:
    """A short, non-reversible tag of the caller's key; batches are visible to their owner only.

    Example:
        >>> owner_tag("anonymous") == owner_tag("anonymous") != owner_tag("other")
        True
    """
    return hashlib.sha256(api_key.encode()).hexdigest()[:16]


def job_id(batch_id: str, index: int) -> str:
    """The arq job id of one item (arq refuses a second job with the same id).

    Example:
        >>> job_id("ab12", 7)
        'ab12:7'
    """
    return f"{batch_id}:{index}"


def is_batch_id(value: str) -> bool:
    """True for a 32-character lowercase hex id (what :meth:`BatchStore.create` issues)."""
    return len(value) == 32 and all(c in "0123456789abcdef" for c in value)


# KEYS: meta, items, results, failures   ARGV: index
# -> {0} batch gone, {1} item already finished, {2, item, options} go ahead (attempt counted)
_BEGIN = """
if redis.call('EXISTS', KEYS[1]) == 0 then return {0} end
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 1 or redis.call('HEXISTS', KEYS[4], ARGV[1]) == 1
then return {1} end
local item = redis.call('HGET', KEYS[2], ARGV[1])
if not item then return {0} end
redis.call('HINCRBY', KEYS[1], 'attempts', 1)
return {2, item, redis.call('HGET', KEYS[1], 'options') or '{}'}
"""

# KEYS: meta, items, results, failures   ARGV: index, payload, 'result'|'error', now
# -> 1 written, 0 duplicate ignored, -1 batch gone
_RECORD = """
local pttl = redis.call('PTTL', KEYS[1])
if pttl == -2 then return -1 end
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 1 or redis.call('HEXISTS', KEYS[4], ARGV[1]) == 1
then
  redis.call('HINCRBY', KEYS[1], 'duplicates', 1)
  return 0
end
local target = KEYS[3]
if ARGV[3] == 'error' then target = KEYS[4] end
redis.call('HSET', target, ARGV[1], ARGV[2])
if pttl > 0 then redis.call('PEXPIRE', target, pttl) end
redis.call('HDEL', KEYS[2], ARGV[1])
local finished = redis.call('HLEN', KEYS[3]) + redis.call('HLEN', KEYS[4])
if finished >= tonumber(redis.call('HGET', KEYS[1], 'total')) then
  redis.call('HSETNX', KEYS[1], 'finished_at', ARGV[4])
end
return 1
"""


def _s(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


#: a hash written with HSET's mapping (redis takes str or bytes field names)
_Fields = dict[str | bytes, str | int]


class BatchStore:
    """All batch reads and writes; shared by the API (submit, status, results, delete) and the
    workers (begin an item, record its outcome)."""

    def __init__(self, client: aredis.Redis, ttl_s: int):
        self.client = client
        self.ttl_s = ttl_s
        self._begin = client.register_script(_BEGIN)
        self._record = client.register_script(_RECORD)

    async def create(self, items: list[str], options: dict[str, Any], owner: str) -> str:
        """Store a validated batch (one MULTI/EXEC) and return its new id."""
        batch_id = uuid.uuid4().hex
        keys = BatchKeys.of(batch_id)
        meta: _Fields = {
            "total": len(items),
            "created_at": repr(time.time()),
            "owner": owner,
            "options": json.dumps(options),
            "attempts": 0,
            "duplicates": 0,
        }
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(keys.meta, mapping=meta)
            pipe.hset(keys.items, mapping={str(i): item for i, item in enumerate(items)})
            pipe.expire(keys.meta, self.ttl_s)
            pipe.expire(keys.items, self.ttl_s)
            pipe.zadd(UNQUEUED, {batch_id: time.time()})
            await pipe.execute()
        return batch_id

    async def enqueue(self, queue: ArqRedis, batch_id: str, total: int) -> None:
        """One arq job per item, with job ids ``{batch}:{index}`` (idempotent: safe to repeat).

        Jobs live as long as the batch (``_expires``), not arq's default day.
        """
        for start in range(0, total, ENQUEUE_CHUNK):
            await asyncio.gather(
                *(
                    queue.enqueue_job(
                        JOB_FUNCTION,
                        batch_id,
                        i,
                        _job_id=job_id(batch_id, i),
                        _queue_name=QUEUE_NAME,
                        _expires=self.ttl_s,
                    )
                    for i in range(start, min(total, start + ENQUEUE_CHUNK))
                )
            )
        await self.client.zrem(UNQUEUED, batch_id)

    async def requeue_stalled(self, queue: ArqRedis, older_than_s: float) -> list[str]:
        """Queue the jobs of batches stored more than ``older_than_s`` ago whose queueing
        never finished (the API died in between); returns their ids. Safe to run anywhere,
        any number of times: job ids make re-queueing idempotent, and a job of an item that
        already has an outcome is a no-op.
        """
        cutoff = time.time() - older_than_s
        healed = []
        for raw in await self.client.zrangebyscore(UNQUEUED, "-inf", cutoff):
            batch_id = _s(raw) or ""
            total = await self.client.hget(BatchKeys.of(batch_id).meta, "total")
            if total is None:  # expired or deleted meanwhile
                await self.client.zrem(UNQUEUED, batch_id)
                continue
            await self.enqueue(queue, batch_id, int(total))
            healed.append(batch_id)
        return healed

    async def info(self, batch_id: str, owner: str | None) -> BatchInfo | None:
        """Status and counts, or None when the batch is unknown, expired or someone else's."""
        keys = BatchKeys.of(batch_id)
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.hgetall(keys.meta)
            pipe.hlen(keys.results)
            pipe.hlen(keys.failures)
            pipe.hgetall(keys.deleted)
            meta_raw, done, failed, tomb_raw = await pipe.execute()
        meta = {_text(k): _text(v) for k, v in meta_raw.items()}
        deleted = not meta
        if deleted:
            meta = {_text(k): _text(v) for k, v in tomb_raw.items()}
            if not meta:
                return None
            done, failed = int(meta["done"]), int(meta["failed"])
        if owner is not None and meta.get("owner") != owner:
            return None
        total = int(meta.get("total", 0))
        attempts = int(meta.get("attempts", 0))
        status: Status = "queued"
        if deleted:
            status = "deleted"
        elif done + failed >= total:
            status = "done"
        elif attempts > 0:
            status = "running"
        finished_at = meta.get("finished_at")
        return BatchInfo(
            id=batch_id,
            status=status,
            total=total,
            done=done,
            failed=failed,
            progress=round((done + failed) / total, 4) if total else 1.0,
            attempts=attempts,
            created_at=float(meta["created_at"]) if meta.get("created_at") else None,
            finished_at=float(finished_at) if finished_at else None,
        )

    async def lines(
        self, batch_id: str, total: int, *, wait: bool = False, poll_s: float = 0.5
    ) -> AsyncIterator[bytes]:
        """Result lines in input order: ``{"index", "result"}`` or ``{"index", "error"}``.

        ``wait=False`` yields the items finished so far (skipping the others); ``wait=True``
        yields every item, waiting for each in turn, and stops early if the batch goes away.
        """
        keys = BatchKeys.of(batch_id)
        index = 0
        while index < total:
            chunk = [str(i) for i in range(index, min(total, index + RESULT_CHUNK))]
            async with self.client.pipeline(transaction=False) as pipe:
                pipe.hmget(keys.results, chunk)
                pipe.hmget(keys.failures, chunk)
                pipe.exists(keys.meta)
                results, failures, alive = await pipe.execute()
            for field, result, error in zip(chunk, results, failures, strict=True):
                if result is not None:
                    yield b'{"index": %s, "result": %s}\n' % (field.encode(), result)
                elif error is not None:
                    yield b'{"index": %s, "error": %s}\n' % (field.encode(), error)
                elif wait and alive:
                    break
                index += 1
            else:
                continue
            await asyncio.sleep(poll_s)

    async def delete(self, batch_id: str, owner: str | None, queue: ArqRedis | None) -> bool:
        """Remove the batch's keys (leaving a tombstone) and its pending arq jobs.

        Jobs already running finish as no-ops: their outcome has no batch to land in.
        Returns False when the batch is unknown or someone else's; True again for a batch
        already deleted.
        """
        info = await self.info(batch_id, owner)
        if info is None:
            return False
        if info.status == "deleted":
            return True
        keys = BatchKeys.of(batch_id)
        tomb: _Fields = {
            "owner": owner or "",
            "total": info.total,
            "done": info.done,
            "failed": info.failed,
            "attempts": info.attempts,
            "created_at": repr(info.created_at or 0.0),
            "deleted_at": repr(time.time()),
        }
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.delete(keys.meta, keys.items, keys.results, keys.failures)
            pipe.hset(keys.deleted, mapping=tomb)
            pipe.expire(keys.deleted, self.ttl_s)
            await pipe.execute()
        if queue is not None:
            for start in range(0, info.total, ENQUEUE_CHUNK):
                ids = [
                    job_id(batch_id, i)
                    for i in range(start, min(info.total, start + ENQUEUE_CHUNK))
                ]
                async with queue.pipeline(transaction=False) as pipe:
                    pipe.zrem(QUEUE_NAME, *ids)
                    pipe.delete(*(job_key_prefix + j for j in ids))
                    pipe.delete(*(retry_key_prefix + j for j in ids))
                    await pipe.execute()
        return True

    # -- the worker side -------------------------------------------------------------------

    async def begin(self, batch_id: str, index: int) -> tuple[str, str] | Literal[0, 1]:
        """Start an item: ``(item_json, options_json)``, or 0 (batch gone) / 1 (finished)."""
        got = await self._begin(keys=_item_keys(batch_id), args=[index])
        if int(got[0]) != 2:
            return 0 if int(got[0]) == 0 else 1
        return _s(got[1]) or "", _s(got[2]) or "{}"

    async def record(
        self, batch_id: str, index: int, payload: str, kind: Literal["result", "error"]
    ) -> int:
        """Write the item's outcome once: 1 written, 0 a duplicate (ignored), -1 batch gone."""
        args: list[str | int] = [index, payload, kind, repr(time.time())]
        return int(await self._record(keys=_item_keys(batch_id), args=args))


def _item_keys(batch_id: str) -> list[str]:
    k = BatchKeys.of(batch_id)
    return [k.meta, k.items, k.results, k.failures]
