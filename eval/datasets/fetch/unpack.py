"""Archives unpacked into the set's folder, never outside it.

- :func:`unpack` — a zip or tar archive into the folder, as its publisher laid it out (the
  tar ``data`` filter and a path check on every zip member refuse absolute names, ``..`` and
  links leading out);
- :func:`joined` — split parts (``images.zip.part-aa``, ``-ab``, ...) read as one archive,
  without writing the joined copy (EvalMuse's parts are 54 GB);
- :func:`place_by_name` — the files of an archive a person downloaded, put into one folder by
  their names, whatever folders the archive has them in (the drive archives' inner layouts
  are not published).

Example:
    >>> import io, tempfile, zipfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> with zipfile.ZipFile(folder / "a.zip", "w") as z:
    ...     z.writestr("DALLE_3/00001.jpeg", b"x")
    >>> unpack(folder / "a.zip", folder, progress=False)
    1
    >>> (folder / "DALLE_3" / "00001.jpeg").read_bytes()
    b'x'
"""

from __future__ import annotations

import fnmatch
import io
import shutil
import tarfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import IO

from tqdm import tqdm

from eval.datasets.fetch.catalog import FetchError
from judge.io.confine import PathEscape, inside


class Joined(io.RawIOBase):
    """Several files read one after the other as one seekable file."""

    def __init__(self, parts: list[Path]) -> None:
        self.parts = parts
        self.name = f"{parts[0].name} (+{len(parts) - 1} parts)" if parts else "no parts"
        self.sizes = [p.stat().st_size for p in parts]
        self.total = sum(self.sizes)
        self.pos = 0
        self.current: tuple[int, io.BufferedReader] | None = None  # the part open now

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.pos, io.SEEK_END: self.total}[whence]
        self.pos = max(0, base + offset)
        return self.pos

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]  # any writable buffer, as RawIOBase
        start, view = 0, memoryview(buffer)
        for k, (part, size) in enumerate(zip(self.parts, self.sizes, strict=True)):
            if self.pos < start + size:
                if self.current is None or self.current[0] != k:
                    self._close_current()
                    self.current = (k, part.open("rb"))
                f = self.current[1]
                f.seek(self.pos - start)
                n = f.readinto(view[: min(len(view), start + size - self.pos)]) or 0
                self.pos += n
                return n
            start += size
        return 0

    def _close_current(self) -> None:
        if self.current is not None:
            self.current[1].close()
            self.current = None

    def close(self) -> None:
        self._close_current()
        super().close()


def joined(parts: list[Path]) -> IO[bytes]:
    """``parts`` (in name order) as one buffered, seekable file."""
    return io.BufferedReader(Joined(sorted(parts)), buffer_size=1 << 20)


@contextmanager
def _opened(archive: Path | IO[bytes]) -> Iterator[zipfile.ZipFile | tarfile.TarFile]:
    try:
        if isinstance(archive, Path) and not zipfile.is_zipfile(archive):
            with tarfile.open(archive) as tar:
                yield tar
        else:
            with zipfile.ZipFile(archive) as zf:
                yield zf
    except (zipfile.BadZipFile, tarfile.TarError, EOFError) as exc:
        raise FetchError(f"{_name(archive)}: not a readable zip or tar archive ({exc})") from None


def unpack(archive: Path | IO[bytes], folder: Path, *, progress: bool) -> int:
    """Unpack ``archive`` into ``folder`` as laid out; the number of files written."""
    with _opened(archive) as arc:
        if isinstance(arc, tarfile.TarFile):
            members = [m for m in arc.getmembers() if m.isfile() or m.isdir()]
            for m in tqdm(members, desc=f"unpacking {_name(archive)}", disable=not progress):
                try:
                    arc.extract(m, folder, filter="data")
                except tarfile.FilterError as exc:
                    raise FetchError(f"{_name(archive)}: member refused ({exc})") from None
            return sum(m.isfile() for m in members)
        n = 0
        for info in tqdm(arc.infolist(), desc=f"unpacking {_name(archive)}", disable=not progress):
            try:
                target = inside(folder, info.filename, where=_name(archive))
            except PathEscape as exc:
                raise FetchError(str(exc)) from None
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with arc.open(info) as src, target.open("wb") as out:
                shutil.copyfileobj(src, out, 1 << 20)
            n += 1
        return n


def place_by_name(archive: Path, folder: Path, pattern: str, *, progress: bool) -> int:
    """Every file of ``archive`` whose name matches ``pattern``, written into ``folder`` by
    its name alone; the number written."""
    folder.mkdir(parents=True, exist_ok=True)
    n = 0
    with _opened(archive) as arc:
        if isinstance(arc, tarfile.TarFile):
            entries: list[tuple[str, zipfile.ZipInfo | tarfile.TarInfo]]
            entries = [(m.name, m) for m in arc.getmembers() if m.isfile()]
        else:
            entries = [(i.filename, i) for i in arc.infolist() if not i.is_dir()]
        for name, member in tqdm(entries, desc=f"placing {archive.name}", disable=not progress):
            base = PurePosixPath(name.replace("\\", "/")).name  # zips made on Windows too
            if not fnmatch.fnmatch(base, pattern) or base.startswith("._"):
                continue  # not a set file, or a macOS resource fork
            src = _member(arc, member)
            if src is None:
                continue
            with src, (folder / base).open("wb") as out:
                shutil.copyfileobj(src, out, 1 << 20)
            n += 1
    return n


def _member(
    arc: zipfile.ZipFile | tarfile.TarFile, member: zipfile.ZipInfo | tarfile.TarInfo
) -> IO[bytes] | None:
    """The open file of an archive member (None for a tar member that is not a file)."""
    if isinstance(arc, tarfile.TarFile) and isinstance(member, tarfile.TarInfo):
        return arc.extractfile(member)
    if isinstance(arc, zipfile.ZipFile) and isinstance(member, zipfile.ZipInfo):
        return arc.open(member)
    return None


def _name(archive: Path | IO[bytes]) -> str:
    return archive.name if isinstance(archive, Path) else str(getattr(archive, "name", "archive"))
