"""The workflows' journal: every finished step, so a run resumes after a crash repeating none.

A step is a string key and a JSON value. On disk it is one line ``{"k": key, "v": value}``
appended and fsynced before the step counts as done, so a ``kill -9`` loses at most the step
in flight. On open the file is replayed: a last line torn by a kill is cut from the file, any
other unreadable line is a :class:`JournalError` naming the line (real damage is never
silently skipped). Without a path the steps live in memory only (tests, dry runs).

Studies and meta-evaluation call it from one thread (:meth:`Journal.get`/:meth:`Journal.put`);
probes call it from many tasks (:meth:`Journal.aget`/:meth:`Journal.aput`, the file write off
the event loop); both paths share one lock. Keys built from parts use :func:`key`.

Example:
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "events.jsonl"
    >>> j = Journal(path)
    >>> j.put(key("prompt", "oe_1", "p1"), {"prompt": "a fox"})
    >>> Journal(path).get(key("prompt", "oe_1", "p1"))["prompt"]
    'a fox'
    >>> Journal(path).count("prompt")
    1
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, Protocol, TypeVar

T = TypeVar("T")
SEP = "\x1f"


class JournalError(ValueError):
    """A journal that cannot be replayed (not a torn last line: real damage)."""


def key(*parts: str) -> str:
    """One key from parts (a kind and the ids that name a step)."""
    return SEP.join(parts)


class Journal:
    """Append-only, fsynced record of finished steps (file-backed, or in memory without a path)."""

    def __init__(self, path: Path | None = None):
        self.path = Path(path) if path is not None else None
        self.data: dict[str, Any] = {}
        self.torn = False
        self._lock = threading.Lock()
        if self.path is not None:
            self._replay(self.path)

    def _replay(self, path: Path) -> None:
        if path.is_dir():
            raise JournalError(f"{path} is a folder, not a journal file; move it aside")
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            return
        raw = path.read_bytes()
        lines = raw.split(b"\n")
        tail = lines.pop()  # after the last newline: empty unless the last write was torn
        if tail:
            self.torn = True
            with path.open("r+b") as fh:
                fh.truncate(len(raw) - len(tail))
                fh.flush()
                os.fsync(fh.fileno())
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                self.data[str(row["k"])] = row["v"]
            except RecursionError:
                raise JournalError(
                    f"{path}:{n}: unreadable journal entry (nested too deeply); move the run "
                    "folder aside and start again, or delete this line to redo that step"
                ) from None
            except (ValueError, KeyError, TypeError) as exc:
                raise JournalError(
                    f"{path}:{n}: unreadable journal entry ({exc}); move the run folder aside "
                    "and start again, or delete this line to redo that step"
                ) from None

    def get(self, name: str) -> Any | None:
        """The recorded value of a finished step, or ``None``."""
        return self.data.get(name)

    def put(self, name: str, value: Any) -> None:
        """Record one finished step and make it durable before returning."""
        line = json.dumps({"k": name, "v": value}, ensure_ascii=False) + "\n"
        with self._lock:
            if self.path is not None:
                with self.path.open("a", encoding="utf-8") as fh:
                    fh.write(line)
                    fh.flush()
                    os.fsync(fh.fileno())
            self.data[name] = value

    def values(self, kind: str) -> Iterator[Any]:
        """The values of every step whose key starts with ``kind``."""
        prefix = kind + SEP
        return (v for k, v in self.data.items() if k == kind or k.startswith(prefix))

    def count(self, kind: str) -> int:
        """How many steps of ``kind`` are recorded."""
        return sum(1 for _ in self.values(kind))

    async def aget(self, name: str) -> Any | None:
        """:meth:`get` for callers on an event loop."""
        return self.data.get(name)

    async def aput(self, name: str, value: Any) -> None:
        """:meth:`put` with the file write in a thread (keeps the event loop free)."""
        await asyncio.to_thread(self.put, name, value)

    async def step(self, name: str, make: Callable[[], Awaitable[T]]) -> T:
        """The stored value of ``name``, else ``await make()`` stored under it."""
        return await step(self, name, make)

    def close(self) -> None:
        """Nothing stays open between writes; kept for symmetry with other stores."""


class StepStore(Protocol):
    """What :func:`step` reads and writes: a :class:`Journal`, or the service's Redis store."""

    async def aget(self, name: str, /) -> Any | None: ...

    async def aput(self, name: str, value: Any, /) -> None: ...


async def step(journal: StepStore, name: str, make: Callable[[], Awaitable[T]]) -> T:
    """For any store with ``aget``/``aput`` coroutines (a :class:`Journal`, the service's Redis
    store): the stored value of ``name``, else ``await make()`` stored under it."""
    found = await journal.aget(name)
    if found is not None:
        return found
    value = await make()
    await journal.aput(name, value)
    return value
