"""Where rendered images go: content-addressed PNG files, or memory.

A sink's ``put(png) -> ref`` returns the reference stored in the tree (``images/<sha>.png``
relative to a CLI run's folder; the API stores the bytes in Redis under the same name).

Example:
    >>> import asyncio, tempfile, pathlib
    >>> sink = FileImages(pathlib.Path(tempfile.mkdtemp()))
    >>> asyncio.run(sink.put(b"png")).startswith("images/")
    True
"""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path
from typing import Protocol

from memory.io.atomic import write_atomic


def image_name(png: bytes) -> str:
    """The content-addressed file name of an image."""
    return hashlib.sha256(png).hexdigest()[:32] + ".png"


class ImageSink(Protocol):
    """Keeps image bytes and answers their reference."""

    async def put(self, png: bytes) -> str: ...


class FileImages:
    """PNG files under ``DIR/images/`` (written atomically; a name is written once)."""

    def __init__(self, root: Path):
        self.root = root
        (root / "images").mkdir(parents=True, exist_ok=True)

    async def put(self, png: bytes) -> str:
        ref = f"images/{image_name(png)}"
        path = self.root / ref
        if not path.exists():
            await asyncio.to_thread(self._write, path, png)
        return ref

    @staticmethod
    def _write(path: Path, png: bytes) -> None:
        write_atomic(path, png)


class MemoryImages:
    """Images in a dict (tests)."""

    def __init__(self) -> None:
        self.data: dict[str, bytes] = {}

    async def put(self, png: bytes) -> str:
        ref = f"images/{image_name(png)}"
        self.data[ref] = png
        return ref
