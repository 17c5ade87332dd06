"""The SHA-256 of a value's JSON text, without spending most of it on escaping images.

``json.dumps`` checks every character of every string for escapes; a request's image data
URL is megabytes of base64 that needs none, so hashing ``json.dumps(value).encode()`` spent
more time escaping than hashing. :func:`json_sha256` hashes exactly the same bytes (the
digest is unchanged, so content fingerprints and mock answers stay what they were) and
feeds long strings that need no escaping to the hash as they are.

Example:
    >>> import hashlib, json
    >>> value = {"prompt": "a calm lake", "images": ["data:image/png;base64," + "A" * 5000]}
    >>> slow = hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()
    >>> json_sha256(value).hexdigest() == slow
    True
"""

from __future__ import annotations

import binascii
import hashlib
import json
import secrets
from collections.abc import Callable
from typing import Any

import pybase64

#: strings at least this long are checked for the splice; shorter ones are not worth it
LONG = 4096
# printable ASCII but the quote and the backslash: what json.dumps writes unchanged
_VERBATIM = bytes(c for c in range(0x20, 0x7F) if c not in b'"\\')
# a data URL's media type and parameters come before its first comma, within this many bytes
_HEAD_MAX = 256


def _verbatim(text: str) -> bytes | None:
    """``text`` as bytes when ``json.dumps`` writes it unchanged (between quotes), else None.

    A data URL's base64 is checked by pybase64's vector decoder (its alphabet and ``=`` are
    all written unchanged), several times faster than a byte-by-byte pass; anything else,
    or base64 it refuses, gets the byte-by-byte pass.
    """
    if not text.isascii():  # O(1): CPython keeps the flag
        return None
    raw = text.encode("ascii")
    cut = raw.find(b",", 0, _HEAD_MAX) if raw.startswith(b"data:") else -1
    if cut >= 0 and not raw[:cut].translate(None, _VERBATIM):
        try:
            pybase64.b64decode(memoryview(raw)[cut + 1 :], validate=True)
            return raw
        except (binascii.Error, ValueError):
            pass
    return raw if not raw.translate(None, _VERBATIM) else None


def json_sha256(
    value: Any, *, sort_keys: bool = True, default: Callable[[Any], Any] | None = None
) -> Any:
    """A ``hashlib.sha256`` object over ``json.dumps(value, sort_keys=..., default=...)``
    encoded as UTF-8 (call ``.hexdigest()`` or ``.copy()`` it to hash more)."""
    longs: list[bytes] = []
    token = secrets.token_hex(8)

    def swap(node: Any) -> Any:
        if isinstance(node, str):
            if len(node) >= LONG and (raw := _verbatim(node)) is not None:
                longs.append(raw)
                return f"\x00{token}:{len(longs) - 1}"
            return node
        if isinstance(node, dict):
            return {k: swap(v) for k, v in node.items()}
        if isinstance(node, list | tuple):
            return [swap(v) for v in node]
        return node

    text = json.dumps(swap(value), sort_keys=sort_keys, default=default)
    digest = hashlib.sha256()
    if not longs:
        digest.update(text.encode())
        return digest
    marker = f'"\\u0000{token}:'
    pieces = text.split(marker)
    digest.update(pieces[0].encode())
    for piece in pieces[1:]:
        index, _, rest = piece.partition('"')
        digest.update(b'"')
        digest.update(longs[int(index)])
        digest.update(b'"')
        digest.update(rest.encode())
    return digest


def content_fingerprint(value: Any) -> str:
    """The 16-hex-digit id of a request that carries none: its JSON, keys sorted, hashed."""
    return json_sha256(value).hexdigest()[:16]
