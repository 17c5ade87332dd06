"""A bounded, thread-safe memo of per-image results keyed by the image's content hash, so
that one image scored by several checks is read (detected, OCR'd) once.

Entries leave in the order they came once more than ``size`` are held.

Example:
    >>> memo = ContentMemo(size=2)
    >>> calls = []
    >>> memo.get("ab12", lambda: calls.append(1) or ("cat",)), memo.get("ab12", tuple), calls
    (('cat',), ('cat',), [1])
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class ContentMemo(Generic[T]):
    """``compute()``'s result remembered under a content hash (at most ``size`` of them)."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._data: OrderedDict[str, T] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, sha256: str, compute: Callable[[], T]) -> T:
        """The remembered result for ``sha256``, else ``compute()`` (outside the lock)."""
        with self._lock:
            if sha256 in self._data:
                return self._data[sha256]
        found = compute()
        with self._lock:
            self._data[sha256] = found
            while len(self._data) > self.size:
                self._data.popitem(last=False)
        return found
