"""Step journals: every finished step of a probe, so a restarted run repeats none of them.

A step is a key (``n0.1:test:3``) and a JSON value. :class:`FileJournal` appends one line per
step and fsyncs it before the step counts as done, so a ``kill -9`` loses at most the step in
flight; a torn last line is ignored on reading. :class:`MemoryJournal` keeps steps in a dict
(tests, the API's stores wrap their own). Anything with ``get``/``put`` coroutines works.

Example:
    >>> import asyncio
    >>> j = MemoryJournal()
    >>> async def once() -> int:
    ...     return await j.step("a", lambda: asyncio.sleep(0, result=1))
    >>> asyncio.run(once()), j.data
    (1, {'a': 1})
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Journal(Protocol):
    """Where steps are kept."""

    async def get(self, key: str) -> Any | None: ...

    async def put(self, key: str, value: Any) -> None: ...


class _Steps:
    async def step(self, key: str, make: Callable[[], Awaitable[T]]) -> T:
        """The stored value of ``key``, else ``await make()`` stored under it."""
        found = await self.get(key)  # type: ignore[attr-defined]
        if found is not None:
            return found
        value = await make()
        await self.put(key, value)  # type: ignore[attr-defined]
        return value


class MemoryJournal(_Steps):
    """Steps in a dict."""

    def __init__(self) -> None:
        self.data: dict[str, Any] = {}

    async def get(self, key: str) -> Any | None:
        return self.data.get(key)

    async def put(self, key: str, value: Any) -> None:
        self.data[key] = value


class FileJournal(_Steps):
    """Steps appended to ``path`` as JSON lines ``{"k": key, "v": value}``."""

    def __init__(self, path: Path):
        self.path = path
        self.data: dict[str, Any] = {}
        self._lock = asyncio.Lock()
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    continue  # the torn tail of a killed run
                if isinstance(row, dict) and "k" in row:
                    self.data[row["k"]] = row.get("v")
        path.parent.mkdir(parents=True, exist_ok=True)

    async def get(self, key: str) -> Any | None:
        return self.data.get(key)

    async def put(self, key: str, value: Any) -> None:
        line = json.dumps({"k": key, "v": value}, ensure_ascii=False) + "\n"
        async with self._lock:
            await asyncio.to_thread(self._append, line)
            self.data[key] = value

    def _append(self, line: str) -> None:
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())


async def step(journal: Any, key: str, make: Callable[[], Awaitable[T]]) -> T:
    """:meth:`_Steps.step` for any journal with ``get``/``put``."""
    found = await journal.get(key)
    if found is not None:
        return found
    value = await make()
    await journal.put(key, value)
    return value
