"""Inflate a PNG's image data a slice at a time, and insist that it is exactly what its header
declares: the zlib stream ends (its Adler-32 right) at exactly ``n`` bytes, with nothing after.

Shared by the fast PNG decode (:mod:`judge.io.png_fast`) and the as-sent check
(:mod:`judge.io.as_sent_png`); neither holds more than one slice of inflated data at a time.

Example:
    >>> import zlib
    >>> stream = zlib.compress(b"x" * 10)
    >>> [len(p) for p in inflate_exactly([memoryview(stream)], 10, lambda done: 4)]
    [4, 4, 2]
    >>> list(inflate_exactly([memoryview(stream)], 11, lambda done: 4))
    Traceback (most recent call last):
    ...
    ValueError: the image data inflates to 10 bytes, not the 11 its header declares
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import cast

from isal import isal_zlib

#: The exception isal raises on a bad stream. isal's stub declares ``error: Exception`` (an
#: instance), though at run time it is the class, so it is cast once here for ``except``.
ZLIB_ERROR = cast(type[Exception], isal_zlib.error)


def inflate_exactly(
    parts: Iterable[memoryview | bytes], n: int, room: Callable[[int], int]
) -> Iterator[bytes]:
    """The inflated data of the zlib stream split across ``parts``, in pieces of at most
    ``room(done)`` bytes (``done``: the bytes given so far). Raises :class:`ValueError` (also
    for a broken stream) unless it ends at exactly ``n`` bytes with nothing after it."""
    inflater = isal_zlib.decompressobj()
    done = 0
    try:
        for part in [*parts, b""]:  # the empty one: what the inflater still holds
            tail: bytes | memoryview = part
            while True:
                piece = inflater.decompress(tail, max(1, min(room(done), n - done)))
                stuck = not piece and len(inflater.unconsumed_tail) == len(tail)
                tail = inflater.unconsumed_tail
                if stuck or (not piece and not tail):
                    break
                if done + len(piece) > n:
                    raise ValueError(f"the image data inflates to more than {n} bytes")
                if piece:
                    yield piece
                    done += len(piece)
    except ZLIB_ERROR as exc:
        raise ValueError(f"the image data is not a zlib stream ({exc})") from None
    if done != n:
        raise ValueError(
            f"the image data inflates to {done} bytes, not the {n} its header declares"
        )
    if not inflater.eof or inflater.unused_data or inflater.unconsumed_tail:
        raise ValueError("the image data's zlib stream does not end, or has bytes after it")
