"""Probes in Redis: options, the step journal, images, the tree snapshot and overrides.

Keys (all expire ``batch_ttl_s`` after the last write)::

    judge:probe:{id}:meta       hash   owner, params (JSON), backend, status, error,
                                       created_at, finished_at
    judge:probe:{id}:journal    hash   step key -> JSON value (what a resumed run skips)
    judge:probe:{id}:images     hash   images/<sha>.png -> PNG bytes
    judge:probe:{id}:tree       string the latest exported tree (JSON)
    judge:probe:{id}:overrides  hash   "<node>/<test>/<image>" -> {"verdict", "who", "when"}
    judge:probe:{id}:lease      string the process running it (SET NX PX, renewed)
    judge:probes:active         set    ids of probes not finished yet (resumed after a restart)
    judge:probes:owner:{owner}  zset   the owner's probe ids by creation time (listing)

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

from eval.probing.storage import image_name
from eval.probing.tree import Override

ACTIVE = "judge:probes:active"


def _s(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


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

    async def create(self, params: dict[str, Any], backend: str, owner: str) -> str:
        probe_id = uuid.uuid4().hex
        meta = {
            "owner": owner,
            "params": json.dumps(params),
            "backend": backend,
            "status": "running",
            "created_at": repr(time.time()),
        }
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(self.key(probe_id, "meta"), mapping=meta)
            pipe.expire(self.key(probe_id, "meta"), self.ttl_s)
            pipe.sadd(ACTIVE, probe_id)
            pipe.zadd(f"judge:probes:owner:{owner}", {probe_id: time.time()})
            pipe.expire(f"judge:probes:owner:{owner}", self.ttl_s)
            await pipe.execute()
        return probe_id

    async def listing(self, owner: str, limit: int = 100) -> list[dict[str, Any]]:
        """The owner's probes, newest first: ``{"id", "status", "topic", "backend",
        "created_at"}`` (expired ones are skipped)."""
        ids = await self.client.zrevrange(f"judge:probes:owner:{owner}", 0, limit - 1)
        out = []
        for raw in ids:
            probe_id = _s(raw) or ""
            meta = await self.meta(probe_id, owner)
            if meta is None:
                continue
            params = json.loads(meta["params"])
            out.append(
                {
                    "id": probe_id,
                    "status": meta.get("status"),
                    "topic": params.get("topic"),
                    "backend": meta.get("backend"),
                    "created_at": float(meta["created_at"]) if meta.get("created_at") else None,
                }
            )
        return out

    async def meta(self, probe_id: str, owner: str | None = None) -> dict[str, str] | None:
        raw = await self.client.hgetall(self.key(probe_id, "meta"))
        meta = {_s(k): _s(v) for k, v in raw.items()}
        if not meta or (owner is not None and meta.get("owner") != owner):
            return None
        return meta  # type: ignore[return-value]

    async def finish(self, probe_id: str, status: str, error: str | None = None) -> None:
        fields = {"status": status, "finished_at": repr(time.time())}
        if error:
            fields["error"] = error[:1000]
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(self.key(probe_id, "meta"), mapping=fields)
            pipe.srem(ACTIVE, probe_id)
            await pipe.execute()

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
        return {_s(k): Override.model_validate_json(v) for k, v in raw.items()}  # type: ignore[misc]

    async def put_override(self, probe_id: str, key: str, override: Override) -> None:
        name = self.key(probe_id, "overrides")
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(name, key, override.model_dump_json())
            pipe.expire(name, self.ttl_s)
            await pipe.execute()

    async def image(self, probe_id: str, ref: str) -> bytes | None:
        return await self.client.hget(self.key(probe_id, "images"), ref)

    async def take_lease(self, probe_id: str, holder: str, lease_s: float) -> bool:
        key = self.key(probe_id, "lease")
        return bool(await self.client.set(key, holder, nx=True, px=int(lease_s * 1000)))

    async def renew_lease(self, probe_id: str, holder: str, lease_s: float) -> bool:
        key = self.key(probe_id, "lease")
        if _s(await self.client.get(key)) != holder:
            return False
        await self.client.pexpire(key, int(lease_s * 1000))
        return True

    async def drop_lease(self, probe_id: str, holder: str) -> None:
        key = self.key(probe_id, "lease")
        if _s(await self.client.get(key)) == holder:
            await self.client.delete(key)


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
