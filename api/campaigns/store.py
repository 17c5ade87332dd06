"""The Redis layout of campaigns.

Keys under ``judge:campaign:<id>:``: ``meta`` (JSON record, items included, images as keys),
``status``, ``img`` (hash key → bytes), ``mime`` (hash key → type), ``annotators`` (hash name
→ JSON), ``planned`` (hash item → votes answered or in progress), ``outcomes`` (hash item →
JSON list of accepted answers, for extra votes where they disagree), ``a:<name>`` (hash:
``pending`` task JSON, ``served`` count, ``penalty_until``), ``seen:<name>`` (set of items),
``log`` (list: every answer an annotator sent, accepted or not, oldest first — append-only).

An invitation token is stored only as its SHA-256: ``judge:campaign-token:<sha>`` → JSON
``{"campaign", "annotator"}``. Exports and reports name the annotator, never the token.

Example::

    store = CampaignStore(redis)
    await store.create(record, images)           # False when the id is taken
    who = await store.token_owner(token)         # {"campaign", "annotator"} or None
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import redis.asyncio as aredis

from api.core.redis_create import create_if_absent

PREFIX = "judge:campaign:"
TOKENS = "judge:campaign-token:"
_TAKE = """
local pending = redis.call('HGET', KEYS[1], 'pending')
if not pending or cjson.decode(pending)['id'] ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[1], 'pending')
redis.call('RPUSH', KEYS[2], ARGV[2])
if ARGV[3] ~= '' then
  local raw = redis.call('HGET', KEYS[3], ARGV[4])
  local seen = raw and cjson.decode(raw) or {}
  table.insert(seen, cjson.decode(ARGV[3]))
  redis.call('HSET', KEYS[3], ARGV[4], cjson.encode(seen))
end
return 1
"""


def _key(cid: str, *parts: str) -> str:
    return PREFIX + ":".join((cid, *parts))


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class CampaignStore:
    """Campaigns, invitations, served tasks and the append-only answer log in Redis."""

    def __init__(self, redis: aredis.Redis):
        self.redis = redis
        self._take = redis.register_script(_TAKE)
        self._records: dict[str, dict[str, Any]] = {}  # parsed records (immutable but status)

    async def create(self, record: dict[str, Any], images: dict[str, tuple[bytes, str]]) -> bool:
        """Write a new campaign in one transaction; False (nothing written) when it exists."""
        cid = record["id"]

        def write(pipe: Any) -> None:
            pipe.set(_key(cid, "meta"), json.dumps(record))
            pipe.set(_key(cid, "status"), record.get("status", "open"))
            if images:
                pipe.hset(_key(cid, "img"), mapping={k: v[0] for k, v in images.items()})
                pipe.hset(_key(cid, "mime"), mapping={k: v[1] for k, v in images.items()})
            planned = {i["id"]: 0 for i in record["items"] if not i.get("validation")}
            pipe.hset(_key(cid, "planned"), mapping=planned)

        return await create_if_absent(self.redis, _key(cid, "meta"), write)

    async def record(self, cid: str) -> dict[str, Any] | None:
        """The campaign record (with its current ``status``), or None."""
        rec = self._records.get(cid)
        if rec is None:
            raw = await self.redis.get(_key(cid, "meta"))
            if raw is None:
                return None
            rec = json.loads(raw)
            rec["_by_id"] = {i["id"]: i for i in rec["items"]}
            rec = self._records.setdefault(cid, rec)
        status = await self.redis.get(_key(cid, "status"))
        return {**rec, "status": status.decode() if status else "open"}

    async def set_status(self, cid: str, status: str) -> None:
        await self.redis.set(_key(cid, "status"), status)

    async def image(self, cid: str, key: str) -> tuple[bytes, str] | None:
        data, mime = await self.redis.hmget(_key(cid, "img"), key), None
        if data[0] is None:
            return None
        mime = await self.redis.hget(_key(cid, "mime"), key)
        return data[0], (mime or b"application/octet-stream").decode()

    async def invite(self, cid: str, people: dict[str, str]) -> list[str]:
        """Register annotators ``{name: token}``; the names already taken (nothing written)."""
        key = _key(cid, "annotators")
        taken = [n for n in people if await self.redis.hexists(key, n)]
        if taken:
            return taken
        async with self.redis.pipeline(transaction=True) as pipe:
            for name, token in people.items():
                pipe.hset(key, name, json.dumps({"annotator": name}))
                pipe.set(
                    TOKENS + token_hash(token), json.dumps({"campaign": cid, "annotator": name})
                )
            await pipe.execute()
        return []

    async def annotators(self, cid: str) -> list[str]:
        return sorted(k.decode() for k in await self.redis.hkeys(_key(cid, "annotators")))

    async def token_owner(self, token: str) -> dict[str, str] | None:
        raw = await self.redis.get(TOKENS + token_hash(token))
        return json.loads(raw) if raw else None

    async def state(self, cid: str, who: str) -> dict[str, Any]:
        """``{"pending": task|None, "served": n, "penalty_until": t}`` of one annotator."""
        got = await self.redis.hgetall(_key(cid, "a", who))
        return {
            "pending": json.loads(got[b"pending"]) if b"pending" in got else None,
            "served": int(got.get(b"served", 0)),
            "penalty_until": float(got.get(b"penalty_until", 0.0)),
        }

    async def seen(self, cid: str, who: str) -> set[str]:
        return {x.decode() for x in await self.redis.smembers(_key(cid, "seen", who))}

    async def planned(self, cid: str) -> dict[str, int]:
        return {
            k.decode(): int(v) for k, v in (await self.redis.hgetall(_key(cid, "planned"))).items()
        }

    async def outcomes(self, cid: str) -> dict[str, list[Any]]:
        got = await self.redis.hgetall(_key(cid, "outcomes"))
        return {k.decode(): json.loads(v) for k, v in got.items()}

    async def serve(self, cid: str, who: str, task: dict[str, Any], counted: bool) -> None:
        """Record a newly served task as the annotator's pending one."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(_key(cid, "a", who), "pending", json.dumps(task))
            pipe.hincrby(_key(cid, "a", who), "served", 1)
            pipe.sadd(_key(cid, "seen", who), task["item"])
            if counted:
                pipe.hincrby(_key(cid, "planned"), task["item"], 1)
            await pipe.execute()

    async def update_pending(
        self, cid: str, who: str, task: dict[str, Any], penalty_until: float
    ) -> None:
        await self.redis.hset(
            _key(cid, "a", who),
            mapping={"pending": json.dumps(task), "penalty_until": penalty_until},
        )

    async def log(self, cid: str, entry: dict[str, Any]) -> None:
        """Append one attempt that did not close the task (too fast, during a pause)."""
        await self.redis.rpush(_key(cid, "log"), json.dumps(entry))

    async def close_task(
        self, cid: str, who: str, task: dict[str, Any], entry: dict[str, Any]
    ) -> bool:
        """Log an accepted answer and clear the pending task, atomically; False when the task
        was no longer pending (a second click on the same task)."""
        outcome = entry.get("choice") if entry.get("choice") is not None else entry.get("rating")
        keep = "" if entry.get("validation") or outcome is None else json.dumps(outcome)
        done = await self._take(
            keys=[_key(cid, "a", who), _key(cid, "log"), _key(cid, "outcomes")],
            args=[task["id"], json.dumps(entry), keep, entry["item"]],
        )
        return bool(done)

    async def attempts(self, cid: str) -> list[dict[str, Any]]:
        """Every logged attempt, oldest first."""
        out: list[dict[str, Any]] = []
        start, step = 0, 10_000
        while True:
            chunk = await self.redis.lrange(_key(cid, "log"), start, start + step - 1)
            out += [json.loads(x) for x in chunk]
            if len(chunk) < step:
                return out
            start += step
