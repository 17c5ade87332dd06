"""The waits a provider names, shared by the service's processes on one host.

``judge serve --workers N`` runs N processes, each with its own adaptive limits
(:mod:`judge.llm.adaptive`). They all spend one quota: when the provider refuses a call of
one process and names a wait (``retry-after``, or the time its window takes to refill), the
other processes would go on sending until each met a refusal of its own. With a shared
table, the process that hears the wait writes it down, and every process of the host holds
its new calls for it and restarts from one call, as if it had heard the wait itself.

The table is a small memory-mapped file (``<data dir>/llm-pauses``, which ``judge serve``
creates empty before it starts its workers and names in ``JUDGE_SHARED_PAUSES``). Reading it
costs no system call, so every call's slot can look; writers take a lock on the file, and
only when a provider names a wait. Times are on ``time.monotonic``, one clock for all the
processes of a host (Linux's ``CLOCK_MONOTONIC``). A record is a route's key (a hash of its
model and endpoint), when its wait ends and the wait itself (the restart's pace); a record
read while another process writes it is read again. A full table (256 routes) shares no
more routes: their limits work alone, as they do in one process.

Example:
    >>> import tempfile, pathlib
    >>> path = SharedPauses.create(pathlib.Path(tempfile.mkdtemp()) / "llm-pauses")
    >>> mine, theirs = SharedPauses(path), SharedPauses(path)
    >>> mine.publish("openai/gpt-4o @ api.openai.com", wait_s=2.0, pace=2.0)
    >>> until, pace = theirs.read("openai/gpt-4o @ api.openai.com")
    >>> 1.9 < until - time.monotonic() <= 2.0, pace
    (True, 2.0)
    >>> theirs.read("another/model") is None
    True
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import math
import mmap
import os
import struct
import time
from collections.abc import Callable
from pathlib import Path

ENV = "JUDGE_SHARED_PAUSES"
"""The table's file, for every process started after :func:`create` set it."""
SLOTS = 256
"""Routes the table holds."""
_RECORD = struct.Struct("<QQdd")  # sequence (odd while written), route key, until, pace
_SEQ = struct.Struct("<Q")
SIZE = SLOTS * _RECORD.size


@functools.lru_cache(maxsize=1024)
def route_key(route: str) -> int:
    """A route's 64-bit key in the table (never 0: 0 marks an empty slot)."""
    digest = hashlib.blake2b(route.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little") or 1


class SharedPauses:
    """One process's handle on the shared table at ``path`` (see the module docstring)."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.monotonic):
        self.path = Path(path)
        self._clock = clock
        fd = os.open(self.path, os.O_RDWR)
        try:
            if os.fstat(fd).st_size != SIZE:
                raise ValueError(
                    f"{self.path} is not a shared pause table ({SIZE} bytes); "
                    "make one with SharedPauses.create"
                )
            self._map = mmap.mmap(fd, SIZE)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    @staticmethod
    def create(path: Path) -> Path:
        """Make ``path`` an empty table (replacing what was there); returns it."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fresh = path.with_name(f".{path.name}.{os.getpid()}")
        fresh.write_bytes(bytes(SIZE))
        os.replace(fresh, path)
        return path

    def close(self) -> None:
        """Unmap the table."""
        self._map.close()
        os.close(self._fd)

    # -- reading (no lock, no system call) ---------------------------------------------------
    def _record(self, slot: int) -> tuple[int, float, float]:
        offset = slot * _RECORD.size
        for _ in range(8):
            seq, key, until, pace = _RECORD.unpack_from(self._map, offset)
            if not seq & 1 and _SEQ.unpack_from(self._map, offset)[0] == seq:
                return key, until, pace
        return 0, 0.0, 0.0  # written all the while: read as nothing

    def _slot(self, key: int) -> tuple[int | None, int | None]:
        """The slot holding ``key`` and the first empty one met looking for it."""
        start = key % SLOTS
        for step in range(SLOTS):
            slot = (start + step) % SLOTS
            found = self._record(slot)[0]
            if found == key:
                return slot, None
            if found == 0:
                return None, slot
        return None, None

    def read(self, route: str) -> tuple[float, float] | None:
        """``(until, pace)`` of the wait now holding ``route`` (``until`` on the table's
        clock), or None."""
        slot, _ = self._slot(route_key(route))
        if slot is None:
            return None
        _, until, pace = self._record(slot)
        if not (math.isfinite(until) and until > self._clock()):
            return None
        if not (math.isfinite(pace) and pace > 0):
            return None
        return until, pace

    # -- writing (under the file's lock) ------------------------------------------------------
    def publish(self, route: str, *, wait_s: float, pace: float) -> None:
        """Hold ``route`` for ``wait_s`` seconds from now (never shortens a longer wait)."""
        if not (math.isfinite(wait_s) and wait_s > 0 and math.isfinite(pace) and pace > 0):
            return
        key = route_key(route)
        fcntl.lockf(self._fd, fcntl.LOCK_EX)
        try:
            slot, empty = self._slot(key)
            if slot is None:
                if empty is None:
                    return  # the table is full: this route's limits work alone
                slot = empty
            offset = slot * _RECORD.size
            seq, found, until, _ = _RECORD.unpack_from(self._map, offset)
            now = self._clock()
            if found == key and until >= now + wait_s:
                return
            _SEQ.pack_into(self._map, offset, seq + 1)  # odd: being written
            _RECORD.pack_into(self._map, offset, seq + 1, key, now + wait_s, pace)
            _SEQ.pack_into(self._map, offset, seq + 2)
        finally:
            fcntl.lockf(self._fd, fcntl.LOCK_UN)


_attached: dict[str, SharedPauses] = {}


def from_env() -> SharedPauses | None:
    """This process's handle on the table named in ``JUDGE_SHARED_PAUSES`` (opened once), or
    None when it is unset or cannot be opened (limits then work per process)."""
    path = os.environ.get(ENV)
    if not path:
        return None
    held = _attached.get(path)
    if held is None:
        try:
            held = _attached[path] = SharedPauses(Path(path))
        except (OSError, ValueError):
            return None
    return held
