"""Content-hash cache of embeddings around any :class:`Encoder`.

Each item's vector is keyed by sha256 over (encoder id, role, content), where content is
the UTF-8 text or, for an image, its mode, size and raw pixels (``img.tobytes()``). Only
the misses of a batch reach the wrapped encoder, in one call (duplicates sent once). The
backing store is anything with ``get_many(keys)`` / ``set_many(mapping)`` over float32
bytes; the default is an in-memory LRU, and a Redis store can be plugged in later.

Example:
    >>> import numpy as np
    >>> from memory.encoders.base import Encoder
    >>> class Toy(Encoder):
    ...     id, modality, dim = "toy", "text", 2
    ...     calls = 0
    ...     def _encode(self, items, role):
    ...         Toy.calls += 1
    ...         return np.array([[len(t), 1.0] for t in items])
    >>> enc = CachedEncoder(Toy(), max_entries=100)
    >>> first = enc.encode(["ab", "c"])
    >>> second = enc.encode(["c", "ab", "new"])
    >>> Toy.calls, enc.hits, enc.misses, bool(np.allclose(first, second[[1, 0]]))
    (2, 2, 3, True)
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np
from PIL import Image

from memory.encoders.base import Encoder, Role


class VectorStore(Protocol):
    """Where cached vectors live: bytes by key, ``None`` for a miss."""

    def get_many(self, keys: Sequence[str]) -> list[bytes | None]: ...

    def set_many(self, items: Mapping[str, bytes]) -> None: ...


class LRUStore:
    """Thread-safe in-memory least-recently-used store with at most ``max_entries`` keys."""

    def __init__(self, max_entries: int = 50_000) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.max_entries = max_entries
        self._data: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._data)

    def get_many(self, keys: Sequence[str]) -> list[bytes | None]:
        with self._lock:
            found = []
            for key in keys:
                value = self._data.get(key)
                if value is not None:
                    self._data.move_to_end(key)
                found.append(value)
            return found

    def set_many(self, items: Mapping[str, bytes]) -> None:
        with self._lock:
            for key, value in items.items():
                self._data[key] = value
                self._data.move_to_end(key)
            while len(self._data) > self.max_entries:
                self._data.popitem(last=False)


def content_key(encoder_id: str, role: str, item: Any) -> str:
    """sha256 hex over encoder id, role and the item's content (text or pixels)."""
    digest = hashlib.sha256()
    for part in (encoder_id, role):
        digest.update(part.encode("utf-8") + b"\0")
    if isinstance(item, Image.Image):
        digest.update(f"image\0{item.mode}\0{item.size[0]}x{item.size[1]}\0".encode())
        digest.update(item.tobytes())
    elif isinstance(item, str):
        digest.update(b"text\0" + item.encode("utf-8"))
    else:
        raise TypeError(f"cannot cache items of type {type(item).__name__}")
    return digest.hexdigest()


class CachedEncoder(Encoder):
    """Same interface as the wrapped encoder; vectors come from the store when known."""

    def __init__(
        self,
        encoder: Encoder,
        max_entries: int = 50_000,
        store: VectorStore | None = None,
    ) -> None:
        self.encoder = encoder
        self.store: VectorStore = store if store is not None else LRUStore(max_entries)
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()

    @property
    def id(self) -> str:  # type: ignore[override]  # a read-only view of the wrapped encoder
        return self.encoder.id

    @property
    def modality(self) -> Any:  # type: ignore[override]  # a read-only view of the wrapped encoder
        return self.encoder.modality

    @property
    def dim(self) -> int:  # type: ignore[override]  # a read-only view of the wrapped encoder
        return self.encoder.dim

    def __repr__(self) -> str:
        return f"CachedEncoder({self.id!r}, hits={self.hits}, misses={self.misses})"

    def encode(self, items: list[Any], role: Role = "document") -> np.ndarray:
        items = list(items)
        out = np.zeros((len(items), self.dim), dtype=np.float32)
        if not items:
            return out
        keys = [content_key(self.id, role, item) for item in items]
        missing: dict[str, Any] = {}  # key -> first item with that key
        for row, (key, blob) in enumerate(zip(keys, self.store.get_many(keys), strict=True)):
            vector = None if blob is None else np.frombuffer(blob, dtype=np.float32)
            if vector is not None and vector.shape == (self.dim,):
                out[row] = vector
            else:
                missing.setdefault(key, items[row])
        with self._lock:
            self.hits += len(items) - sum(key in missing for key in keys)
            self.misses += sum(key in missing for key in keys)
        if missing:
            fresh = self.encoder.encode(list(missing.values()), role)
            by_key = dict(zip(missing, np.asarray(fresh, dtype=np.float32), strict=True))
            self.store.set_many({key: vec.tobytes() for key, vec in by_key.items()})
            for row, key in enumerate(keys):
                if key in by_key:
                    out[row] = by_key[key]
        return out

    def _encode(self, items: list[Any], role: Role) -> np.ndarray:
        return self.encoder.encode(items, role)
