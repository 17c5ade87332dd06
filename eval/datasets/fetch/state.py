"""What a fetched folder already holds: ``.judge-fetch.json`` beside the set's files.

A file is recorded once it is complete and checked (its sha256 and size), an archive once it
is unpacked; a second run skips both, so a fetch cut short resumes where it stopped. The record
is written atomically after each step: a crash leaves the last complete state.

Example:
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "data.csv").write_text("name\\n")
    >>> state = FolderState(folder)
    >>> state.has("data.csv")
    False
    >>> state.mark("data.csv", "ab12", 5)
    >>> FolderState(folder).has("data.csv")
    True
"""

from __future__ import annotations

import json
from pathlib import Path

from memory.io.atomic import write_atomic

STATE = ".judge-fetch.json"


class FolderState:
    """The record of one folder's complete files and unpacked archives."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / STATE
        self.folder = folder
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raw = {}
        self.files: dict[str, dict] = dict(raw.get("files") or {})
        self.unpacked: dict[str, str] = dict(raw.get("unpacked") or {})

    def has(self, rel: str) -> bool:
        """Whether ``rel`` was fetched, checked, and is still there at its size."""
        entry = self.files.get(rel)
        path = self.folder / rel
        return bool(entry) and path.is_file() and path.stat().st_size == (entry or {}).get("size")

    def mark(self, rel: str, sha256: str, size: int) -> None:
        """Record ``rel`` as complete and checked."""
        self.files[rel] = {"sha256": sha256, "size": size}
        self._save()

    def was_unpacked(self, archive: str) -> bool:
        """Whether ``archive`` was unpacked into the folder already."""
        return archive in self.unpacked

    def mark_unpacked(self, archive: str, sha256: str) -> None:
        """Record ``archive`` as unpacked (the archive itself may then be removed)."""
        self.unpacked[archive] = sha256
        self.files.pop(archive, None)
        self._save()

    def _save(self) -> None:
        body = {"files": self.files, "unpacked": self.unpacked}
        write_atomic(self.path, json.dumps(body, indent=1, sort_keys=True) + "\n")
