"""Keep a path named by data inside the folder it came with.

Files such as a data set's labels, a campaign manifest or a posts export name images by
path. A path taken from such a file must stay inside its folder: an absolute path, ``..``
that climbs out, or a symlink that points elsewhere could otherwise make the program read (and
send to a model provider) any file the user can read. :func:`inside` is the one check every
reader uses; it resolves the path (symlinks included) before comparing, and raises
:class:`PathEscape` naming the record, the path and the folder.

Example:
    >>> from pathlib import Path
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> inside(root, "images/a.jpg").relative_to(root.resolve()).as_posix()
    'images/a.jpg'
    >>> inside(root, "../secret.txt", where="labels.csv line 3")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    judge.io.confine.PathEscape: labels.csv line 3: path '../secret.txt' leaves the folder ...
"""

from __future__ import annotations

import os
from pathlib import Path


class PathEscape(ValueError):
    """A path from data that leads out of its folder (absolute, ``..`` or a symlink)."""


def inside(root: Path, ref: str | os.PathLike[str], where: str = "", folder: str = "") -> Path:
    """The resolved path of ``ref`` (relative to ``root``, symlinks followed) when it stays
    inside ``root``; :class:`PathEscape` otherwise. The file need not exist: a missing file
    is the caller's error to name, an escaping one is refused here either way.

    ``where`` names the record (``"labels.json: key \\"x\\""``), ``folder`` what the root is
    to the user (``"the data folder"``, ``"the source folder"``).
    """
    base = Path(root).resolve()
    text = os.fspath(ref)
    try:
        real = (base / text).resolve()
    except (OSError, RuntimeError, ValueError) as exc:  # a symlink loop, a NUL byte
        why = f"cannot be resolved ({exc})"
        raise PathEscape(_message(where, text, root, folder, why)) from None
    if real != base and not real.is_relative_to(base):
        raise PathEscape(_message(where, text, root, folder, f"it resolves to {real}"))
    return real


def _message(where: str, text: str, root: Path, folder: str, why: str) -> str:
    lead = f"{where}: " if where else ""
    name = folder or "the folder"
    return (
        f"{lead}path {text[:200]!r} leaves {name} {root} and is refused ({why}); "
        "name files relative to that folder, inside it"
    )
