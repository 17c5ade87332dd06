"""Writing a file whole or not at all.

:func:`write_atomic` writes to a temporary file beside the target (named after the target,
the process and the thread, so concurrent writers never share one), flushes it to disk and
renames it over the target: a reader, or a run killed half-way, sees the old file or the new
one, never a mix. The parent folder is created when missing.

Example:
    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp()) / "out"
    >>> write_atomic(out / "report.json", '{"ok": true}')
    >>> (out / "report.json").read_text(), sorted(p.name for p in out.iterdir())
    ('{"ok": true}', ['report.json'])
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

__all__ = ["write_atomic"]


def write_atomic(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Replace ``path`` by ``data`` (``str`` is written as UTF-8) through a fsynced temp file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with tmp.open("wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
