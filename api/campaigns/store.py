"""The Redis layout of campaigns.

Keys under ``judge:campaign:<id>:``: ``meta`` (JSON record, items included, images as keys),
``created`` (a random mark written with ``meta``: a process that remembers the record
checks it to notice the campaign was created again), ``url-secret`` (what per-task image
URLs are sealed with: :mod:`api.campaigns.aliases`), ``status``, ``img`` (hash key →
bytes), ``mime`` (hash key → type), ``annotators`` (hash name
→ JSON), ``queue`` (sorted set item → votes answered or in progress: the next item is read
off its low end, O(log n)), ``leases`` (sorted set annotator → end of the lease on their
pending task), ``outcomes`` (hash item → JSON list of accepted answers, for extra votes where
they disagree), ``a:<name>`` (hash: ``pending`` task JSON, ``served`` count,
``penalty_until``), ``seen:<name>`` (set of items), ``stats`` (hash: ``expired``,
``released`` reservations), ``log`` (list: every answer an annotator sent, accepted or not,
oldest first — append-only).

Serving is two Lua scripts (``lua/next.lua``, ``lua/answer.lua``), each one atomic round
trip: an annotator holds at most one pending task (concurrent ``next`` calls get the same
one), a reservation expires after the campaign's ``lease_seconds`` and its item goes back to
the pool (each ``next`` call sweeps a few expired leases; ``lua/release.lua`` releases on
the admin's demand; the three share the functions of ``lua/shared.lua``). The sweep touches
other annotators' keys from inside a script, so the layout assumes one Redis (not a cluster),
as the rest of the service does.

An invitation token is stored only as its SHA-256: ``judge:campaign-token:<sha>`` → JSON
``{"campaign", "annotator"}``. Exports and reports name the annotator, never the token.

Example::

    store = CampaignStore(redis)
    await store.create(record, images)           # False when the id is taken
    who = await store.token_owner(token)         # TokenOwner(campaign, annotator) or None
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis.asyncio as aredis

from api.campaigns.aliases import Aliases
from api.core.clock import WALL_CLOCK, Clock, window
from api.core.redis_create import create_if_absent
from eval.campaigns.record import CampaignRecord, TokenOwner

PREFIX = "judge:campaign:"
TOKENS = "judge:campaign-token:"
LUA = Path(__file__).resolve().parent / "lua"
SHARED = (LUA / "shared.lua").read_text(encoding="utf-8")
SCRIPTS = {
    name: (SHARED if name in ("next", "answer", "release") else "")
    + (LUA / f"{name}.lua").read_text(encoding="utf-8")
    for name in ("next", "answer", "release", "invite", "revoke")
}
"""The serving scripts, read once at import (never on a request's event loop), the shared
functions of ``lua/shared.lua`` in front of those that use them."""
_CACHE_TASKS = 50_000  # pending tasks remembered per process (answers skip one read)
_CACHE_TOKENS = 100_000  # live tokens remembered per process (label calls skip one read)
REVALIDATE_S = 1.0
"""How long a process serves label calls from a remembered campaign record before checking,
in one round trip, that the campaign was not created again under its id."""
IMAGE_CACHE_BYTES = 64 * 2**20
"""Campaign images kept in each service process (they never change), least recently used
out first."""


def _key(cid: str, *parts: str) -> str:
    return PREFIX + ":".join((cid, *parts))


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Limits:
    """Per-minute request budgets of label calls, counted inside the serving scripts: the
    invitation's (``per_token``) and the caller address's (``per_address``), in the minutes of
    ``clock``; 0 = no limit.

    Example::

        Limits(per_token=240, per_address=12_000, address="203.0.113.9")
    """

    per_token: int = 0
    per_address: int = 0
    address: str = ""
    clock: Clock = WALL_CLOCK

    def keys(self, token: str | None) -> list[str]:
        """This minute's counters of ``token`` and of the address."""
        minute = window(self.clock, 60)
        tok = token_hash(token or "")[:16]
        addr = hashlib.sha256(self.address.encode()).hexdigest()[:16]
        return [f"judge:rate:label-token:{tok}:{minute}", f"judge:rate:label-addr:{addr}:{minute}"]


NO_LIMITS = Limits()


def _text(x: Any) -> str:
    return x.decode() if isinstance(x, bytes) else str(x)


class CampaignStore:
    """Campaigns, invitations, served tasks and the append-only answer log in Redis."""

    def __init__(self, redis: aredis.Redis):
        self.redis = redis
        self._next = redis.register_script(SCRIPTS["next"])
        self._answer = redis.register_script(SCRIPTS["answer"])
        self._release = redis.register_script(SCRIPTS["release"])
        self._invite = redis.register_script(SCRIPTS["invite"])
        self._revoke = redis.register_script(SCRIPTS["revoke"])
        self._records: dict[str, CampaignRecord] = {}  # parsed records (immutable but status)
        self._status: dict[str, str] = {}  # status as last written or read by this process
        self._marks: dict[str, bytes | None] = {}  # creation mark of each remembered record
        self._checked: dict[str, float] = {}  # when each record was last revalidated
        self._aliases: dict[str, Aliases] = {}  # each campaign's per-task image URLs
        self._tasks: OrderedDict[tuple[str, str], dict[str, Any]] = OrderedDict()
        self._owners: OrderedDict[str, TokenOwner] = OrderedDict()
        self._images: OrderedDict[tuple[str, str], tuple[bytes, str]] = OrderedDict()
        self._image_bytes = 0

    async def create(self, record: CampaignRecord, images: dict[str, tuple[bytes, str]]) -> bool:
        """Write a new campaign in one transaction; False (nothing written) when it exists."""
        cid = record.id

        def write(pipe: Any) -> None:
            pipe.set(_key(cid, "meta"), record.dumps())
            pipe.set(_key(cid, "created"), secrets.token_hex(8))
            pipe.set(_key(cid, "url-secret"), secrets.token_bytes(32))
            pipe.set(_key(cid, "status"), record.status)
            if images:
                pipe.hset(_key(cid, "img"), mapping={k: v[0] for k, v in images.items()})
                pipe.hset(_key(cid, "mime"), mapping={k: v[1] for k, v in images.items()})
            pipe.zadd(_key(cid, "queue"), {i.id: 0 for i in record.real_items()})

        return await create_if_absent(self.redis, _key(cid, "meta"), write)

    async def record(self, cid: str, fresh_status: bool = True) -> CampaignRecord | None:
        """The campaign record with its ``status``, or None. The record is parsed once per
        process (it never changes while the campaign exists) and revalidated against the
        campaign's creation mark — on every call with ``fresh_status``, else at most every
        :data:`REVALIDATE_S` (the label routes: their scripts read the status themselves) —
        so a campaign created again under its id (after a Redis loss, say) is read anew
        instead of served from the old record."""
        rec = self._records.get(cid)
        now = time.monotonic()
        if rec is not None and (fresh_status or now - self._checked.get(cid, 0) > REVALIDATE_S):
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.get(_key(cid, "status"))
                pipe.get(_key(cid, "created"))
                pipe.exists(_key(cid, "meta"))
                status, mark, exists = await pipe.execute()
            self._checked[cid] = now
            if not exists or mark != self._marks.get(cid):
                self.forget(cid)
                rec = None
            else:
                self._status[cid] = status.decode() if status else "open"
        if rec is None:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.get(_key(cid, "meta"))
                pipe.get(_key(cid, "status"))
                pipe.get(_key(cid, "created"))
                raw, status, mark = await pipe.execute()
            if raw is None:
                return None
            rec = CampaignRecord.loads(raw)
            await self._migrate(cid)
            self._records[cid], self._marks[cid], self._checked[cid] = rec, mark, now
            self._status[cid] = status.decode() if status else "open"
        return rec.with_status(self._status.get(cid, "open"))

    async def aliases(self, cid: str) -> Aliases | None:
        """The campaign's per-task image URLs (:mod:`api.campaigns.aliases`): its URL secret,
        read once per process (drawn now for a campaign stored before it had one); None
        when there is no such campaign."""
        got = self._aliases.get(cid)
        if got is None:
            if not await self.redis.exists(_key(cid, "meta")):
                return None
            await self.redis.set(_key(cid, "url-secret"), secrets.token_bytes(32), nx=True)
            secret = await self.redis.get(_key(cid, "url-secret"))
            if secret is None:  # the campaign was deleted in between
                return None
            got = self._aliases[cid] = Aliases(secret)
        return got

    def forget(self, cid: str) -> None:
        """Drop what this process remembers of campaign ``cid`` (its record, status, pending
        tasks and images): the next read takes them from Redis."""
        for cache in (self._records, self._status, self._marks, self._checked, self._aliases):
            cache.pop(cid, None)
        for key in [k for k in self._tasks if k[0] == cid]:
            del self._tasks[key]
        for key in [k for k in self._images if k[0] == cid]:
            self._image_bytes -= len(self._images.pop(key)[0])

    async def _migrate(self, cid: str) -> None:
        """A campaign stored before the ``queue`` sorted set kept its counts in a ``planned``
        hash: copy them over once (``ZADD NX``: counts already in the queue stay)."""
        if await self.redis.exists(_key(cid, "queue")):
            return
        old = await self.redis.hgetall(_key(cid, "planned"))
        if old:
            await self.redis.zadd(_key(cid, "queue"), {k: int(v) for k, v in old.items()}, nx=True)

    async def set_status(self, cid: str, status: str) -> None:
        await self.redis.set(_key(cid, "status"), status)
        self._status[cid] = status

    async def image(self, cid: str, key: str) -> tuple[bytes, str] | None:
        """``(bytes, mime)`` of one of the campaign's images (read from Redis once per
        process, then from :data:`IMAGE_CACHE_BYTES` of memory), or None."""
        got = self._images.get((cid, key))
        if got is not None:
            self._images.move_to_end((cid, key))
            return got
        got = await self._read_image(cid, key)
        if got is not None and len(got[0]) <= IMAGE_CACHE_BYTES // 8:
            self._images[(cid, key)] = got
            self._image_bytes += len(got[0])
            while self._image_bytes > IMAGE_CACHE_BYTES:
                _, (old, _) = self._images.popitem(last=False)
                self._image_bytes -= len(old)
        return got

    async def image_exists(self, cid: str, key: str) -> bool:
        """Whether the campaign has this image (from memory when it was served before)."""
        if (cid, key) in self._images:
            return True
        return bool(await self.redis.hexists(_key(cid, "img"), key))

    async def _read_image(self, cid: str, key: str) -> tuple[bytes, str] | None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hget(_key(cid, "img"), key)
            pipe.hget(_key(cid, "mime"), key)
            data, mime = await pipe.execute()
        if data is None:
            return None
        return data, (mime or b"application/octet-stream").decode()

    async def invite(self, cid: str, people: dict[str, str], rotate: bool = False) -> list[str]:
        """Register annotators ``{name: token}`` atomically; the names already taken
        (nothing written). With ``rotate``, a name that exists gets its new token and its old
        one stops working: one live token per annotator, however often they are invited."""
        args: list[str] = []
        for name, token in people.items():
            args += [name, token_hash(token)]
        got = await self._invite(
            keys=[_key(cid, "annotators")],
            args=[TOKENS, cid, "rotate" if rotate else "new", *args],
        )
        if _text(got[0]) == "taken":
            return [_text(got[1])]
        self._forget_owners(cid, list(people))
        return []

    def _forget_owners(self, cid: str, names: list[str]) -> None:
        gone = {TokenOwner(campaign=cid, annotator=n) for n in names}
        self._owners = OrderedDict((k, v) for k, v in self._owners.items() if v not in gone)

    async def revoke(self, cid: str, names: list[str]) -> list[str]:
        """End the named annotators' links (their pending tasks are released); the names
        revoked (unknown ones left out)."""
        got = await self._revoke(keys=[_key(cid, "annotators")], args=[TOKENS, *names])
        done = [_text(x) for x in got]
        self._forget_owners(cid, done)
        if done:
            await self.release(cid, done, time.time())
        return done

    async def set_profile(self, cid: str, who: str, profile: dict[str, Any]) -> None:
        """Keep what an annotator chose to say about themselves (replacing an earlier one)."""
        await self.redis.hset(_key(cid, "profiles"), who, json.dumps(profile))

    async def profiles(self, cid: str) -> dict[str, dict[str, Any]]:
        got = await self.redis.hgetall(_key(cid, "profiles"))
        return {k.decode(): json.loads(v) for k, v in got.items()}

    async def has_profile(self, cid: str, who: str) -> bool:
        return bool(await self.redis.hexists(_key(cid, "profiles"), who))

    async def annotators(self, cid: str) -> list[str]:
        return sorted(k.decode() for k in await self.redis.hkeys(_key(cid, "annotators")))

    async def revoked(self, cid: str) -> list[str]:
        got = await self.redis.hgetall(_key(cid, "annotators"))
        return sorted(k.decode() for k, v in got.items() if json.loads(v).get("revoked"))

    async def token_owner(self, token: str) -> TokenOwner | None:
        """The :class:`TokenOwner` of a live token (read, and remembered), or None."""
        digest = token_hash(token)
        raw = await self.redis.get(TOKENS + digest)
        if raw is None:
            self._owners.pop(digest, None)
            return None
        owner = TokenOwner.model_validate_json(raw)
        self._owners[digest] = owner
        self._owners.move_to_end(digest)
        while len(self._owners) > _CACHE_TOKENS:
            self._owners.popitem(last=False)
        return owner

    def known_owner(self, token: str) -> TokenOwner | None:
        """The owner of a token this process has seen live, without a Redis read (the
        serving scripts check the token again, so a revoked one still ends there)."""
        return self._owners.get(token_hash(token))

    async def state(self, cid: str, who: str) -> dict[str, Any]:
        """``{"pending": task|None, "served": n, "penalty_until": t}`` of one annotator
        (the pending task in its stored form)."""
        got = await self.redis.hgetall(_key(cid, "a", who))
        return {
            "pending": json.loads(got[b"pending"]) if b"pending" in got else None,
            "served": int(got.get(b"served", 0)),
            "penalty_until": float(got.get(b"penalty_until", 0.0)),
        }

    async def seen(self, cid: str, who: str) -> set[str]:
        return {x.decode() for x in await self.redis.smembers(_key(cid, "seen", who))}

    async def planned(self, cid: str) -> dict[str, int]:
        """Votes answered or in progress per item."""
        got = await self.redis.zrange(_key(cid, "queue"), 0, -1, withscores=True)
        return {k.decode(): int(v) for k, v in got}

    async def outcomes(self, cid: str) -> dict[str, list[Any]]:
        got = await self.redis.hgetall(_key(cid, "outcomes"))
        return {k.decode(): json.loads(v) for k, v in got.items()}

    async def reserve(
        self,
        cid: str,
        who: str,
        token: str | None,
        *,
        now: float,
        lease_s: float,
        target: int,
        task_id: str,
        seed: int,
        start: float,
        item: str = "",
        item_is_validation: bool = False,
        validation: list[str] | tuple[str, ...] = (),
        validation_rate: float = 0.0,
        draw: float = 1.0,
        limits: Limits = NO_LIMITS,
    ) -> tuple[str, dict[str, Any] | None]:
        """The annotator's pending task, or a newly reserved one, in one atomic round trip:
        ``("pending"|"new", task)``, ``("none", None)`` when no item below ``target`` is left
        for them, ``("closed"|"revoked", None)``, ``("rate-token"|"rate-address", None)``
        over ``limits``. ``item`` reserves that item; otherwise a least-voted item they have
        not seen (the one at ``start`` ∈ [0, 1) among the least-voted, then on) — on a
        validation turn (``draw`` < ``validation_rate``, or the annotator's validation tasks
        fell behind that rate) replaced by the first of ``validation`` they have
        not seen."""
        got = await self._next(
            keys=[
                _key(cid, "a", who),
                _key(cid, "seen", who),
                _key(cid, "queue"),
                _key(cid, "leases"),
                _key(cid, "status"),
                self._token_key(cid, token),
                *limits.keys(token),
            ],
            args=[who, repr(now), repr(lease_s), target, task_id, seed, repr(start),
                  _key(cid, ""), item, "1" if item_is_validation else "0",
                  limits.per_token, limits.per_address, repr(validation_rate), repr(draw),
                  *validation],
        )  # fmt: skip
        what = _text(got[0]) + (f"-{_text(got[1])}" if _text(got[0]) == "rate" else "")
        task = json.loads(got[1]) if what in ("new", "pending") else None
        if task is not None:
            self._remember(cid, who, task)
        return what, task

    def _token_key(self, cid: str, token: str | None) -> str:
        # no token (a simulation): a key that exists while the campaign does
        return TOKENS + token_hash(token) if token else _key(cid, "meta")

    def _remember(self, cid: str, who: str, task: dict[str, Any]) -> None:
        self._tasks[(cid, who)] = task
        self._tasks.move_to_end((cid, who))
        while len(self._tasks) > _CACHE_TASKS:
            self._tasks.popitem(last=False)

    async def pending(self, cid: str, who: str, task_id: str) -> dict[str, Any] | None:
        """The pending task ``task_id`` of an annotator (remembered from serving it, else
        read), or None when it is not the pending one. Its ``served_at`` may be stale: the
        answer script reads the stored one."""
        task = self._tasks.get((cid, who))
        if task is None or task["id"] != task_id:
            raw = await self.redis.hget(_key(cid, "a", who), "pending")
            task = json.loads(raw) if raw else None
            if task is not None:
                self._remember(cid, who, task)
        return task if task is not None and task["id"] == task_id else None

    async def record_answer(
        self,
        cid: str,
        who: str,
        token: str | None,
        entry: dict[str, Any],
        *,
        now: float,
        min_seconds: float,
        penalty_s: float,
        cap: int,
        limits: Limits = NO_LIMITS,
    ) -> tuple[str, float]:
        """Check and log one answer in one atomic round trip: ``("ok", 0)`` accepted (the task
        closed), ``("paused", left)``, ``("fast", pause)`` (logged, not accepted), or
        ``("gone"|"expired"|"revoked"|"closed"|"rate-token"|"rate-address", 0)`` (``expired``:
        the task's lease had ended; it is released), or ``("cap", 0)``
        past ``cap`` answers from this annotator (nothing logged). ``entry`` gets
        ``seconds``, ``accepted`` and ``fast`` from the stored task."""
        outcome = entry.get("choice") if entry.get("choice") is not None else entry.get("rating")
        keep = "" if entry.get("validation") or outcome is None else json.dumps(outcome)
        got = await self._answer(
            keys=[_key(cid, "a", who), _key(cid, "log"), _key(cid, "outcomes"),
                  _key(cid, "leases"), self._token_key(cid, token), _key(cid, "status"),
                  *limits.keys(token), _key(cid, "queue")],
            args=[entry["task"], repr(now), repr(min_seconds), repr(penalty_s),
                  json.dumps(entry), keep, entry["item"], who,
                  limits.per_token, limits.per_address, cap, _key(cid, "")],
        )  # fmt: skip
        what = _text(got[0]) + (f"-{_text(got[1])}" if _text(got[0]) == "rate" else "")
        if what in ("ok", "expired"):
            self._tasks.pop((cid, who), None)
        return what, float(_text(got[1])) if what in ("paused", "fast") else 0.0

    async def reservations(self, cid: str) -> list[dict[str, Any]]:
        """Every live reservation: ``{"annotator", "item", "task", "served_at",
        "lease_until"}``, oldest lease first."""
        leases = await self.redis.zrange(_key(cid, "leases"), 0, -1, withscores=True)
        async with self.redis.pipeline(transaction=False) as pipe:
            for name, _ in leases:
                pipe.hget(_key(cid, "a", name.decode()), "pending")
            pending = await pipe.execute()
        out = []
        for (name, until), raw in zip(leases, pending, strict=True):
            if raw is None:
                continue
            task = json.loads(raw)
            out.append({"annotator": name.decode(), "item": task["item"], "task": task["id"],
                        "served_at": task["served_at"], "lease_until": until})  # fmt: skip
        return out

    async def release(self, cid: str, names: list[str] | None, now: float) -> list[str]:
        """Release the reservations of ``names`` (None: every expired one); the names
        whose pending task was dropped (its item back in the pool)."""
        got = await self._release(
            keys=[_key(cid, "queue"), _key(cid, "leases")],
            args=[_key(cid, ""), repr(now), "named" if names else "expired", *(names or [])],
        )
        for name in names or []:
            self._tasks.pop((cid, name), None)
        return [_text(x) for x in got]

    async def stats(self, cid: str) -> dict[str, int]:
        got = await self.redis.hgetall(_key(cid, "stats"))
        return {k.decode(): int(v) for k, v in got.items()}

    async def log(self, cid: str, entry: dict[str, Any]) -> None:
        """Append one entry to the answer log."""
        await self.redis.rpush(_key(cid, "log"), json.dumps(entry))

    async def attempts(
        self, cid: str, fields: tuple[str, ...] | None = None
    ) -> list[dict[str, Any]]:
        """Every logged attempt, oldest first; with ``fields``, only those of each (what a
        caller does not read need not be held: the free text, the timestamps…)."""
        out: list[dict[str, Any]] = []
        start, step = 0, 10_000
        while True:
            chunk = await self.redis.lrange(_key(cid, "log"), start, start + step - 1)
            for x in chunk:
                entry = json.loads(x)
                if fields is not None:
                    entry = {k: entry[k] for k in fields if k in entry}
                out.append(entry)
            if len(chunk) < step:
                return out
            start += step

    async def log_length(self, cid: str) -> int:
        """How many attempts the log holds."""
        return int(await self.redis.llen(_key(cid, "log")))

    async def log_slice(self, cid: str, first: int, last: int) -> list[bytes]:
        """Log entries ``first``..``last`` (inclusive) as stored (JSON bytes)."""
        return list(await self.redis.lrange(_key(cid, "log"), first, last))
