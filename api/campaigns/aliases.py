"""Per-task image URLs: the same image gets a different, opaque URL in every task it is
shown in, so no URL links a validation task to a real one, or one task to another.

An alias is 40 hex digits: a nonce (an HMAC of the task id and the image's key under the
campaign's URL secret, 8 bytes) and the key XORed with a pad drawn from the nonce (12
bytes). The service turns an alias back into the key with the secret alone (no state per
served task); without the secret an alias says nothing about the key, and a forged one
names no image. The same task shows the same aliases on every reload (the browser's cache
still works within a task).

Example:
    >>> a = Aliases(b"s" * 32)
    >>> url = a.alias("t0123456789abcdef", "0123456789abcdef01234567")
    >>> len(url), a.key_of(url), url == a.alias("t1111111111111111", "0123456789abcdef01234567")
    (40, '0123456789abcdef01234567', False)
"""

from __future__ import annotations

import hashlib
import hmac
import re

ALIAS = re.compile(r"^[0-9a-f]{40}$")


class Aliases:
    """The per-task image URLs of one campaign (its URL secret)."""

    def __init__(self, secret: bytes):
        self._secret = secret

    def _mac(self, *parts: bytes) -> bytes:
        return hmac.new(self._secret, b"\x00".join(parts), hashlib.sha256).digest()

    def alias(self, task_id: str, key: str) -> str:
        """The URL segment of image ``key`` (24 hex digits) in task ``task_id``."""
        nonce = self._mac(b"nonce", task_id.encode(), key.encode())[:8]
        pad = self._mac(b"pad", nonce)[:12]
        return nonce.hex() + _xor(bytes.fromhex(key), pad).hex()

    def key_of(self, alias: str) -> str | None:
        """The image key an alias stands for (None when it is not an alias's shape)."""
        if not ALIAS.fullmatch(alias):
            return None
        nonce, sealed = bytes.fromhex(alias[:16]), bytes.fromhex(alias[16:])
        pad = self._mac(b"pad", nonce)[:12]
        return _xor(sealed, pad).hex()


def _xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b, strict=True))
