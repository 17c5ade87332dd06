"""Response caches: in-memory by default, any async key–value store can plug in.

The key covers model + rendered messages (images by sha256) + parameters + skill-card
version, so a changed card wording or another model never hits a stale answer.

Example:
    >>> import asyncio
    >>> c = InMemoryCache(max_entries=2)
    >>> asyncio.run(c.set("k", "v")); asyncio.run(c.get("k"))
    'v'
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from typing import Any, Protocol


class ResponseCache(Protocol):
    """What the gateway needs of a cache (a Redis-backed one implements the same)."""

    async def get(self, key: str) -> str | None: ...  # pragma: no cover - protocol

    async def set(self, key: str, value: str) -> None: ...  # pragma: no cover - protocol


class InMemoryCache:
    """A bounded LRU cache living in the process."""

    def __init__(self, max_entries: int = 10_000):
        self.max_entries = max_entries
        self._data: OrderedDict[str, str] = OrderedDict()

    async def get(self, key: str) -> str | None:
        value = self._data.get(key)
        if value is not None:
            self._data.move_to_end(key)
        return value

    async def set(self, key: str, value: str) -> None:
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.max_entries:
            self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)


_DIGESTS: OrderedDict[str, str] = OrderedDict()
_DIGESTS_MAX = 16  # each entry keeps an image's data URL alive


def url_digest(url: str) -> str:
    """sha256 of a data URL, computed once per image: every call of a submission sends the
    same string object, and a str caches its own hash, so repeat look-ups are O(1)."""
    digest = _DIGESTS.get(url)
    if digest is None:
        digest = hashlib.sha256(url.encode()).hexdigest()
        _DIGESTS[url] = digest
        while len(_DIGESTS) > _DIGESTS_MAX:
            _DIGESTS.popitem(last=False)
    return digest


def strip_images(obj: Any) -> Any:
    """Replace data URLs by the sha256 of their payload so keys stay small and exact."""
    if isinstance(obj, dict):
        if obj.get("type") == "image_url":
            url = obj.get("image_url", {}).get("url", "")
            return {"image_sha256": url_digest(url)}
        return {k: strip_images(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [strip_images(v) for v in obj]
    return obj


def cache_key(model: str, messages: list[dict], schema: dict, params: dict, tag: str) -> str:
    """A stable key for one structured call."""
    blob = json.dumps(
        {"m": model, "msg": strip_images(messages), "s": schema, "p": params, "t": tag},
        sort_keys=True,
        ensure_ascii=False,
    )
    return "judge:resp:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()
