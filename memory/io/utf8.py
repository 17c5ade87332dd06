"""Reading a text file the product expects in UTF-8, with an error that names the file.

Python's own ``UnicodeDecodeError`` says which byte is wrong but not in which file; a user
with five data files cannot act on it. :func:`read_utf8` reads the file and, when it is not
UTF-8, raises :class:`NotUtf8` (a ``ValueError``) naming the file, the line and the byte.

Example:
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "labels.csv"
    >>> _ = path.write_bytes(b"name,score\\ncaf\\xe9.jpg,3\\n")
    >>> read_utf8(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    memory.io.utf8.NotUtf8: .../labels.csv:2: not UTF-8 text (byte 0xe9 at offset 14); save ...
"""

from __future__ import annotations

import os
from pathlib import Path


class NotUtf8(ValueError):
    """A file that should be UTF-8 text and is not: ``FILE:LINE: not UTF-8 text (...)``;
    ``line`` and ``problem`` hold the parts after the file."""

    def __init__(self, path: str | os.PathLike[str], line: int, problem: str) -> None:
        super().__init__(f"{os.fspath(path)}:{line}: {problem}")
        self.line, self.problem = line, problem


def read_utf8(path: str | os.PathLike[str]) -> str:
    """The text of ``path`` decoded as UTF-8 (``OSError`` when it cannot be read)."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        problem = (
            f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "save the file as UTF-8"
        )
        raise NotUtf8(path, line, problem) from None
