"""``data:`` URLs, the one way an image travels inline (to the service, to a provider, in a
JSONL line): ``data:<mime>;base64,<bytes>``.

Built here once; reading them back (size limits, decoding) is :mod:`judge.io.images`.

Example:
    >>> data_url(b"PNG", "image/png")
    'data:image/png;base64,UE5H'
    >>> guess_mime("photo.JPG"), guess_mime("scan"), guess_mime("scan", default=None)
    ('image/jpeg', 'image/png', None)
"""

from __future__ import annotations

import base64
import mimetypes
import os
from pathlib import Path

__all__ = ["data_url", "file_data_url", "guess_mime"]


def data_url(raw: bytes, mime: str) -> str:
    """``raw`` as a base64 ``data:`` URL of type ``mime``."""
    return f"data:{mime};base64,{base64.b64encode(raw).decode()}"


def guess_mime(name: str | os.PathLike[str], default: str | None = "image/png") -> str | None:
    """The type of a file from its name's extension, ``default`` when unknown."""
    return mimetypes.guess_type(Path(name).name)[0] or default


def file_data_url(path: str | os.PathLike[str], default_mime: str = "image/png") -> str:
    """A local file as a ``data:`` URL, typed by its extension (``OSError`` when unreadable).

    >>> import tempfile
    >>> f = Path(tempfile.mkdtemp()) / "a.webp"
    >>> _ = f.write_bytes(b"RIFF")
    >>> file_data_url(f)
    'data:image/webp;base64,UklGRg=='
    """
    raw = Path(path).read_bytes()
    return data_url(raw, guess_mime(path, default_mime) or default_mime)
