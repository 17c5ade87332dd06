"""The runner's journal: what is done, so a run resumes item by item after a crash.

``DIR/journal/events.jsonl`` holds one JSON object per line, appended and fsynced as each step
finishes: ``prompt`` (a prompter's outcome for a task), ``generation`` (a backend's images for
that prompt, written to disk before the event) and ``item`` (the finished results line). On
start the journal is replayed; a last line torn by a kill is dropped (and cut from the file),
anything else unreadable is an error naming the line.

Example:
    >>> import tempfile, pathlib
    >>> j = Journal(pathlib.Path(tempfile.mkdtemp()))
    >>> j.record("prompt", ("oe_1", "p1"), {"status": "ok", "prompt": "a fox"})
    >>> Journal(j.folder.parent).get("prompt", ("oe_1", "p1"))["prompt"]
    'a fox'
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

KINDS = ("prompt", "generation", "item")


class JournalError(ValueError):
    """A journal that cannot be replayed (not a torn last line: real damage)."""


def _key(parts: tuple[str, ...]) -> str:
    return "\x1f".join(parts)


class Journal:
    """Append-only, fsynced record of finished steps; replayed on open."""

    def __init__(self, out_dir: Path, kinds: tuple[str, ...] = KINDS):
        self.folder = Path(out_dir) / "journal"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / "events.jsonl"
        self._done: dict[str, dict[str, dict[str, Any]]] = {k: {} for k in kinds}
        self.torn = False
        self._replay()
        self._fh = self.path.open("a", encoding="utf-8")

    def _replay(self) -> None:
        if not self.path.exists():
            return
        raw = self.path.read_bytes()
        lines = raw.split(b"\n")
        tail = lines.pop()  # after the last newline: empty unless the last write was torn
        if tail:
            self.torn = True
            with self.path.open("r+b") as fh:
                fh.truncate(len(raw) - len(tail))
                fh.flush()
                os.fsync(fh.fileno())
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                event = json.loads(line)
                self._done[event["kind"]][_key(tuple(event["key"]))] = event["data"]
            except (ValueError, KeyError, TypeError) as exc:
                raise JournalError(
                    f"{self.path}:{n}: unreadable journal entry ({exc}); move the output folder "
                    "aside and start again, or delete this line to redo that step"
                ) from None

    def get(self, kind: str, key: tuple[str, ...]) -> dict[str, Any] | None:
        """The recorded data of a finished step, or ``None``."""
        return self._done[kind].get(_key(key))

    def count(self, kind: str) -> int:
        """How many steps of ``kind`` are recorded."""
        return len(self._done[kind])

    def record(self, kind: str, key: tuple[str, ...], data: dict[str, Any]) -> None:
        """Append one finished step and make it durable before returning."""
        line = json.dumps({"kind": kind, "key": list(key), "data": data}, ensure_ascii=False)
        self._fh.write(line + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._done[kind][_key(key)] = data

    def close(self) -> None:
        self._fh.close()


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file, fsynced, then renamed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
