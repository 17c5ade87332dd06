"""Refuse an external Redis that keeps nothing across a restart.

Campaign links, votes, batches and probes live in Redis. A Redis started with neither an
append-only file nor snapshots (``--appendonly no --save ''``) forgets all of it when it
restarts, and the service would go on answering as if nothing happened. So ``judge serve`` and
``judge worker`` ask an external Redis how it persists before they use it, and refuse to start
when it does not, unless the operator said that losing data is acceptable
(``--redis-may-lose-data`` or ``JUDGE_SERVE_REDIS_MAY_LOSE_DATA=true``). The embedded Redis is
started with an append-only file and is not asked.

Where ``CONFIG`` is disabled (managed services rename it), ``INFO persistence`` still tells
whether the append-only file is on; snapshots cannot be seen there, so such a Redis passes only
with the append-only file on (or the explicit flag).

Example::

    >>> describe({"appendonly": "yes", "save": ""}, {"aof_enabled": 1}).durable
    True
    >>> describe({"appendonly": "no", "save": ""}, {"aof_enabled": 0}).durable
    False
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: the setting and flag that accept a Redis that forgets everything on restart
ALLOW_VARIABLE = "JUDGE_SERVE_REDIS_MAY_LOSE_DATA"
ALLOW_FLAG = "--redis-may-lose-data"


@dataclass(frozen=True)
class Persistence:
    """How a Redis keeps its data: ``aof`` (append-only file on), ``snapshots`` (the ``save``
    rule, ``""`` for none, ``None`` when it could not be read)."""

    aof: bool
    snapshots: str | None

    @property
    def durable(self) -> bool:
        """True when a restart keeps what was written (an append-only file or snapshots)."""
        return self.aof or bool(self.snapshots)

    def summary(self) -> str:
        """One line for the start-up log."""
        if self.aof:
            return "append-only file on"
        if self.snapshots:
            return (
                f"snapshots only (save {self.snapshots}): a crash loses what was written "
                "since the last snapshot; turn on the append-only file (--appendonly yes) "
                "to keep every acknowledged answer"
            )
        if self.snapshots is None:
            return "append-only file off and the snapshot rule unreadable (CONFIG disabled)"
        return "neither an append-only file nor snapshots"


class VolatileRedis(RuntimeError):
    """The external Redis would lose every campaign, vote and batch on a restart."""


def describe(config: Mapping[str, Any] | None, info: Mapping[str, Any]) -> Persistence:
    """Read ``CONFIG GET appendonly``/``save`` (``None`` when ``CONFIG`` is refused) and
    ``INFO persistence`` into a :class:`Persistence`."""
    if config is not None:
        values = {_text(key): _text(value) for key, value in config.items()}
        aof = values.get("appendonly", "no").strip().lower() == "yes"
        return Persistence(aof=aof, snapshots=values.get("save", "").strip())
    return Persistence(aof=str(info.get("aof_enabled", "0")) == "1", snapshots=None)


def refusal(url: str, found: Persistence) -> str:
    """The message that stops ``judge serve`` / ``judge worker`` on a volatile Redis."""
    return (
        f"the Redis at {redact(url)} keeps nothing across a restart ({found.summary()}): "
        "every campaign, link, vote and batch would be lost. Start it with "
        "--appendonly yes (and --dir on a disk that survives), or run "
        "`CONFIG SET appendonly yes` on it; if losing that data is acceptable (a throwaway "
        f"test), pass {ALLOW_FLAG} or set {ALLOW_VARIABLE}=true. See docs/security.md#redis"
    )


def check(url: str, may_lose_data: bool) -> Persistence:
    """Ask the Redis at ``url`` how it persists (blocking); raise :class:`VolatileRedis` when
    it does not and ``may_lose_data`` is false."""
    import redis

    client = redis.Redis.from_url(url, socket_timeout=10)
    try:
        try:
            config: Mapping[str, Any] | None = client.config_get("appendonly") | client.config_get(
                "save"
            )
        except redis.ResponseError:  # CONFIG renamed away or not allowed for this user
            config = None
        found = describe(config, client.info("persistence"))
    finally:
        client.close()
    if not found.durable and not may_lose_data:
        raise VolatileRedis(refusal(url, found))
    return found


async def check_async(client: Any, url: str, may_lose_data: bool) -> Persistence:
    """:func:`check` on an asyncio client already connected (the service's lifespan)."""
    from redis.exceptions import ResponseError

    try:
        config: dict[str, Any] | None = (await client.config_get("appendonly")) | (
            await client.config_get("save")
        )
    except ResponseError:
        config = None
    found = describe(config, await client.info("persistence"))
    if not found.durable and not may_lose_data:
        raise VolatileRedis(refusal(url, found))
    return found


def redact(url: str) -> str:
    """``url`` without its password, for messages and logs.

    >>> redact("redis://:s3cret@127.0.0.1:6390/0")
    'redis://:***@127.0.0.1:6390/0'
    >>> redact("unix:///tmp/r.sock?db=0")
    'unix:///tmp/r.sock?db=0'
    """
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest.split("/", 1)[0]:
        return url
    creds, _, host = rest.partition("@")
    user = creds.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}"


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


#: a key the service writes at start and readiness looks for: gone means the Redis lost its data
MARKER_KEY = "judge:redis-marker"


async def mark(client: Any, token: str) -> None:
    """Leave the start-up marker (kept if another process of the service left one)."""
    await client.set(MARKER_KEY, token, nx=True)


async def data_lost(client: Any) -> bool:
    """True when the start-up marker is gone: the Redis restarted without its data (or was
    flushed) since the service started."""
    return not await client.exists(MARKER_KEY)
