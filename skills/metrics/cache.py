"""A small per-process memo of per-image work, keyed by image content.

In best-of-n edit scoring every edited image is compared with the same source, so the
source's faces, patch features and colour samples are computed once and reused. Bounded
(:data:`SIZE` entries, least recently used dropped) and thread-safe.

Example:
    >>> from PIL import Image
    >>> calls = []
    >>> f = lambda img: calls.append(1) or img.size
    >>> img = Image.new("RGB", (4, 4))
    >>> memo("size", img, f), memo("size", img.copy(), f), len(calls)
    ((4, 4), (4, 4), 1)
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from PIL import Image

T = TypeVar("T")
SIZE = 48
_CACHE: OrderedDict[tuple[str, str], Any] = OrderedDict()
_LOCK = threading.Lock()


def image_key(image: Image.Image) -> str:
    """A content hash of the image's pixels, size and mode."""
    digest = hashlib.blake2b(image.tobytes(), digest_size=16)
    digest.update(f"{image.mode}{image.size}".encode())
    return digest.hexdigest()


def get(kind: str, key: str) -> Any:
    """The remembered value, or :data:`None` when there is none."""
    with _LOCK:
        if (kind, key) in _CACHE:
            _CACHE.move_to_end((kind, key))
            return _CACHE[(kind, key)]
    return None


def put(kind: str, key: str, value: Any) -> None:
    """Remember ``value`` (dropping the least recently used entries past :data:`SIZE`)."""
    with _LOCK:
        _CACHE[(kind, key)] = value
        while len(_CACHE) > SIZE:
            _CACHE.popitem(last=False)


def memo(kind: str, image: Image.Image, compute: Callable[[Image.Image], T]) -> T:
    """``compute(image)``, remembered under ``(kind, content hash)``."""
    key = image_key(image)
    value = get(kind, key)
    if value is None:
        value = compute(image)
        put(kind, key, value)
    return value


def clear() -> None:
    """Forget everything (the benchmark times cold pairs)."""
    with _LOCK:
        _CACHE.clear()
