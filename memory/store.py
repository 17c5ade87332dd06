"""Memories on disk: exemplars (JSONL) + vectors + FAISS index + manifest, versioned.

Layout of a store folder::

    <store>/<name>/CURRENT           the live version, e.g. "v0002" (replaced atomically)
    <store>/<name>/v0002/manifest.json, exemplars.jsonl, vectors.npy, index.faiss

A build or an add writes a complete new version folder and then swaps ``CURRENT``, under a
file lock, so readers never see a half-written memory and nothing stored is lost when a
build fails. The two most recent versions are kept.

Example::

    store = MemoryStore()   # your store, over the shipped read-only memories
    mem = store.build("prompt-CO", load_exemplars(Path("prompt_co.jsonl")), base_dir=Path("."))
    hits = mem.search("a four-panel comic about a morning", k=3)
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from memory import index as faiss_index
from memory.exemplar import ExemplarError, ExemplarRecord, dump_jsonl
from memory.io.atomic import write_atomic
from memory.manifest import EncoderInfo, Manifest
from memory.memory import Memory, MemoryDamaged, encode_records, encoder_for
from memory.paths import user_data_dir
from memory.settings import DataSettings

KEEP_VERSIONS = 2
#: a reader opens the live version again when writers replaced and pruned it meanwhile
_LOAD_ATTEMPTS = 5
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
MEMORY_NAME = _NAME
"""What a memory's name may be: letters, digits, ``_``, ``.``, ``-``, starting with a letter or
digit, at most 100 characters."""


SHIPPED_DIR = Path(__file__).parent / "shipped"
"""The memories shipped with the package: read-only, never written to."""


def default_store_dir() -> Path:
    """Where memories are written: ``$JUDGE_MEMORY_DIR``, else ``memories`` under the user
    data folder (:func:`memory.paths.data_home`)."""
    return user_data_dir("memories")


def default_read_only() -> list[Path]:
    """Stores read under the default one: the shipped memories, unless ``JUDGE_MEMORY_DIR``
    names a store to use alone."""
    return [] if DataSettings().memory_dir else [SHIPPED_DIR]


def checksum(folder: Path) -> str:
    h = hashlib.sha256()
    for fname in ("exemplars.jsonl", "vectors.npy"):
        with open(folder / fname, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def _relocate(records: list[ExemplarRecord], base_dir: Path, target: Path) -> list[ExemplarRecord]:
    """Rewrite image paths relative to the version folder (absolute when that fails)."""
    out = []
    for r in records:
        if r.modality == "image":
            path = r.image_path(base_dir).resolve()
            try:
                rel = os.path.relpath(path, target.resolve())
            except ValueError:
                rel = str(path)
            r = r.model_copy(update={"image": rel})
        out.append(r)
    return out


class MemoryStore:
    """A folder of named memories, over read-only stores (layered lookup).

    ``MemoryStore()`` writes to :func:`default_store_dir` and also reads the shipped memories
    (:data:`SHIPPED_DIR`); a memory of the same name in the writable store wins, and building
    or adding to a shipped memory writes a copy there. ``MemoryStore(root)`` is that store
    alone unless ``read_only`` is given.
    """

    def __init__(self, root: Path | None = None, *, read_only: list[Path] | None = None):
        self.root = Path(root) if root else default_store_dir()
        if read_only is None:
            read_only = default_read_only() if root is None else []
        self.read_only = [Path(p) for p in read_only if Path(p).resolve() != self.root.resolve()]
        self._cache: dict[str, tuple[Path, Memory]] = {}

    def folder_of(self, name: str) -> Path:
        """The folder holding ``name``: the writable store's, else the first read-only one's."""
        for root in (self.root, *self.read_only):
            if (root / name / "CURRENT").is_file():
                return root / name
        return self.root / name

    def names(self) -> list[str]:
        """Names of the memories that have a live version (all layers)."""
        found = {
            p.name
            for root in (self.root, *self.read_only)
            if root.is_dir()
            for p in root.iterdir()
            if (p / "CURRENT").is_file()
        }
        return sorted(found)

    def exists(self, name: str) -> bool:
        """True when ``name`` has a live version."""
        return _NAME.match(name) is not None and (self.folder_of(name) / "CURRENT").is_file()

    def _current(self, name: str) -> str:
        try:
            return (self.folder_of(name) / "CURRENT").read_text().strip()
        except FileNotFoundError:
            raise KeyError(
                f"unknown memory {name!r} in {self.root}; available: "
                f"{self.names()}. Build one with 'judge memory build'."
            ) from None

    def load(self, name: str) -> Memory:
        """The live version of ``name`` (cached until a new version appears).

        Raises :class:`KeyError` when unknown and :class:`MemoryDamaged` when it cannot load.
        """
        if not _NAME.match(name):
            raise KeyError(f"invalid memory name {name!r}")
        for attempt in range(1, _LOAD_ATTEMPTS + 1):
            live = self._current(name)
            folder = self.folder_of(name) / live
            cached = self._cache.get(name)
            if cached and cached[0] == folder:
                return cached[1]
            try:
                mem = Memory.open(folder)
            except MemoryDamaged:
                # readers take no lock: while this one opened the version, newer ones went
                # live and pruned it; the version now live is the one to read
                if attempt < _LOAD_ATTEMPTS and self._current(name) != live:
                    continue
                raise
            self._cache[name] = (folder, mem)
            return mem
        raise AssertionError("unreachable")  # pragma: no cover - the last attempt returns or raises

    @contextmanager
    def _locked(self, name: str) -> Iterator[Path]:
        folder = self.root / name
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield folder
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def build(
        self,
        name: str,
        records: list[ExemplarRecord],
        *,
        base_dir: Path,
        encoder: str | None = None,
        index_kind: str | None = None,
        source: str | None = None,
        progress: bool = False,
    ) -> Memory:
        """Create (or replace) memory ``name`` from ``records``."""
        return self._write(
            name,
            records,
            base_dir=base_dir,
            encoder=encoder,
            index_kind=index_kind,
            source=source,
            progress=progress,
            mode="build",
        )

    def add(
        self, name: str, records: list[ExemplarRecord], *, base_dir: Path, progress: bool = False
    ) -> Memory:
        """Add new exemplars to an existing memory (ids must be new)."""
        return self._write(
            name,
            records,
            base_dir=base_dir,
            progress=progress,
            mode="add",
        )

    def extend(
        self,
        name: str,
        records: list[ExemplarRecord],
        *,
        base_dir: Path,
        encoder: str | None = None,
        images: dict[str, bytes] | None = None,
    ) -> Memory:
        """Add ``records`` to ``name``, creating it when it does not exist yet — decided under
        the memory's lock, so concurrent callers never overwrite each other's exemplars.

        ``images`` maps paths relative to the memory's folder (``images/<sha256>.img``) to
        bytes: they are written under the lock, and the ones this call created are removed
        again when the write fails, so a refused add leaves no file behind.

        Example::

            store.extend("prompt-CO", records, base_dir=Path("."))   # new or existing
        """
        return self._write(
            name,
            records,
            base_dir=base_dir,
            encoder=encoder,
            mode="extend",
            images=images,
        )

    def status(self, name: str) -> tuple[Memory | None, MemoryDamaged | None]:
        """``(memory, None)`` when the live version loads, ``(None, problem)`` when damaged."""
        try:
            return self.load(name), None
        except MemoryDamaged as exc:
            return None, exc

    def repair(self, name: str) -> Memory:
        """Point ``CURRENT`` at the newest version that loads cleanly (under the lock).

        Raises :class:`KeyError` for an unknown memory and :class:`MemoryDamaged` when no
        stored version is intact.
        """
        self._current(name)  # KeyError when unknown
        with self._locked(name) as folder:
            versions = sorted(folder.glob("v[0-9][0-9][0-9][0-9]"), reverse=True)
            for version in versions:
                try:
                    Memory.open(version)
                except MemoryDamaged:
                    continue
                self._point(folder, version.name)
                self._cache.pop(name, None)
                break
            else:
                raise MemoryDamaged(name, self._current(name), "no stored version is intact")
        return self.load(name)

    @staticmethod
    def _point(folder: Path, version_dir: str) -> None:
        write_atomic(folder / "CURRENT", version_dir)

    def _write(
        self,
        name: str,
        records: list[ExemplarRecord],
        *,
        base_dir: Path,
        mode: str,
        encoder: str | None = None,
        index_kind: str | None = None,
        source: str | None = None,
        progress: bool = False,
        images: dict[str, bytes] | None = None,
    ) -> Memory:
        if not _NAME.match(name):
            raise ValueError(f"memory name {name!r}: use letters, digits, '-', '_' or '.'")
        _check_records(records)
        with self._locked(name) as folder:
            add = mode == "add" or (mode == "extend" and (folder / "CURRENT").is_file())
            old: Memory | None = None
            if add:
                old = self.load(name)
                clash = sorted({r.id for r in records} & {r.id for r in old.records})
                if clash:
                    raise ExemplarError(f"ids already in memory {name!r}: {clash[:10]}")
                if records[0].modality != old.manifest.modality:
                    raise ExemplarError(f"memory {name!r} holds {old.manifest.modality} exemplars")
                if mode == "extend" and encoder and encoder != old.manifest.encoder.spec:
                    raise ExemplarError(
                        f"memory {name!r} was built with encoder {old.manifest.encoder.spec!r}; "
                        "leave 'encoder' out when adding to it"
                    )
                encoder = old.manifest.encoder.spec
            created = _write_images(folder, images or {})
            try:
                manifest = self._commit(
                    folder, name, records, old, base_dir, encoder, index_kind, source, progress
                )
            except BaseException:
                for path in created:
                    path.unlink(missing_ok=True)
                raise
            self._prune(folder, keep=manifest.version_dir)
            return self.load(name)  # under the lock: the version written, not yet pruned

    def _commit(
        self,
        folder: Path,
        name: str,
        records: list[ExemplarRecord],
        old: Memory | None,
        base_dir: Path,
        encoder: str | None,
        index_kind: str | None,
        source: str | None,
        progress: bool,
    ) -> Manifest:
        """Write and verify a complete new version, then (only then) swap ``CURRENT``."""
        modality = records[0].modality
        spec, enc = encoder_for(modality, encoder)
        prior = [int(p.name[1:]) for p in folder.glob("v[0-9][0-9][0-9][0-9]")]
        version = max(prior, default=0) + 1
        tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=folder))
        try:
            new_records = _relocate(records, base_dir, folder / f"v{version:04d}")
            vectors = encode_records(enc, records, base_dir, progress=progress)
            if old is not None:
                old_records = old.records
                if old.folder.parent != folder:  # a read-only memory copied to this store
                    old_records = _relocate(old_records, old.folder, folder / f"v{version:04d}")
                all_records = old_records + new_records
                vectors = np.vstack([old.vectors, vectors])
            else:
                all_records = new_records
            kind = index_kind or faiss_index.choose_kind(len(all_records))
            if old is not None and old.manifest.index == kind:
                idx = old.index_copy()
                idx.add(np.ascontiguousarray(vectors[len(old.records) :]))
            else:
                idx = faiss_index.build_index(vectors, kind)  # type: ignore[arg-type]  # choose_kind gives a valid IndexKind
            (tmp / "exemplars.jsonl").write_text(dump_jsonl(all_records), encoding="utf-8")
            np.save(tmp / "vectors.npy", vectors.astype(np.float32))
            faiss_index.write_index(idx, tmp / "index.faiss")
            manifest = Manifest(
                name=name,
                modality=modality,
                dimensions=sorted({d for r in all_records for d in r.scores}),
                categories=sorted({r.category for r in all_records if r.category}),
                encoder=EncoderInfo(spec=spec, id=enc.id, dim=enc.dim),
                count=len(all_records),
                checksum=checksum(tmp),
                version=version,
                index=faiss_index.kind_of(idx),
                created_at=datetime.now(UTC).isoformat(timespec="seconds"),
                source=source or (old.manifest.source if old else None),
            )
            (tmp / "manifest.json").write_text(manifest.model_dump_json(indent=2))
            for f in tmp.iterdir():
                with open(f, "rb") as fh:
                    os.fsync(fh.fileno())
            Memory.open(tmp)  # the new version must load before it goes live
            final = folder / manifest.version_dir
            tmp.chmod(0o755)  # mkdtemp makes it private; memories are meant to be shared
            os.rename(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        self._point(folder, manifest.version_dir)
        return manifest

    @staticmethod
    def _prune(folder: Path, keep: str) -> None:
        versions = sorted(p for p in folder.glob("v[0-9][0-9][0-9][0-9]") if p.is_dir())
        for p in versions[:-KEEP_VERSIONS]:
            if p.name != keep:
                shutil.rmtree(p, ignore_errors=True)


def _check_records(records: list[ExemplarRecord]) -> None:
    """Refuse what would make a version that cannot load: nothing, mixed modalities, or an id
    given twice."""
    if not records:
        raise ExemplarError("no exemplars given")
    if len({r.modality for r in records}) > 1:
        raise ExemplarError("exemplars mix prompt and image modalities")
    twice = sorted(id_ for id_, n in Counter(r.id for r in records).items() if n > 1)
    if twice:
        raise ExemplarError(f"ids given more than once: {twice[:10]}")


def _write_images(folder: Path, images: dict[str, bytes]) -> list[Path]:
    """Write content-addressed image files that are not there yet; the ones created."""
    created: list[Path] = []
    try:
        for rel, raw in images.items():
            path = folder / rel
            if path.is_file():
                continue
            write_atomic(path, raw)
            created.append(path)
    except BaseException:
        for path in created:
            path.unlink(missing_ok=True)
        raise
    return created
