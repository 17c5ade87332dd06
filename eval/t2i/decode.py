"""Turn a provider's image items (``b64_json`` or ``url``) into vetted PNG bytes.

Every image is decoded once under the byte and pixel limits of :class:`JudgeSettings`
(:func:`judge.io.images.decode_image`: decompression bombs, unknown formats, truncated data),
charged to a pixel ledger on the generator's process-wide budget
(:mod:`judge.io.pixel_budget`) while it is converted, and re-encoded as PNG. ``url`` results are
downloaded by :func:`judge.io.remote.fetch_image` — https to public addresses only, DNS pinned,
size and time capped — unless the backend sets ``allow_private_urls`` (then also http and
loopback/private addresses, e.g. a bridge on the same machine).

Example:
    >>> import base64, io
    >>> from PIL import Image
    >>> buf = io.BytesIO(); Image.new("RGB", (8, 8), "red").save(buf, "JPEG")
    >>> png = to_png(buf.getvalue(), field="data[0]", settings=JudgeSettings())
    >>> png[:4]
    b'\\x89PNG'
"""

from __future__ import annotations

import base64
import binascii
import io
from typing import Any

from judge.config import JudgeSettings
from judge.errors import InputError
from judge.io.images import decode_image
from judge.io.pixel_budget import PixelBudget, pixel_ledger
from judge.io.remote import fetch_image


def item_field(item: Any, name: str) -> Any:
    """``item.name`` or ``item[name]`` (litellm's ImageObject or a plain dict)."""
    if isinstance(item, dict):
        return item.get(name)
    return getattr(item, name, None)


def to_png(data: bytes, *, field: str, settings: JudgeSettings) -> bytes:
    """Decode and vet ``data`` (any accepted format) and return it as PNG bytes."""
    img = decode_image(data, field=field, settings=settings)
    buf = io.BytesIO()
    img.save(buf, "PNG", compress_level=1)
    return buf.getvalue()


def raw_bytes(item: Any, *, field: str, settings: JudgeSettings, allow_private: bool) -> bytes:
    """The bytes behind one result item; an :class:`InputError` names what is wrong."""
    b64 = item_field(item, "b64_json")
    if isinstance(b64, str) and b64:
        if len(b64) > settings.image_max_bytes * 4 // 3 + 16:
            raise InputError(field, f"image is larger than the {settings.image_max_bytes} limit")
        try:
            return base64.b64decode(b64, validate=True)
        except (binascii.Error, ValueError):
            raise InputError(field, "b64_json is not valid base64") from None
    url = item_field(item, "url")
    if isinstance(url, str) and url:
        if url.startswith("data:"):
            from judge.io.images import read_image_bytes

            return read_image_bytes(url, field=field, settings=settings)
        try:
            return fetch_image(url, field=field, settings=settings, allow_private=allow_private)
        except InputError as exc:
            if allow_private or (not url.startswith("http://") and "non-public" not in exc.message):
                raise
            raise InputError(
                field,
                f"{exc.message} (a url result from a local or private "
                "server needs allow_private_urls = true on the backend)",
            ) from None
    raise InputError(field, "the result has neither b64_json nor url")


def convert_items(
    items: list[Any],
    *,
    settings: JudgeSettings,
    budget: PixelBudget | None,
    allow_private: bool,
) -> tuple[list[bytes], list[str]]:
    """PNG bytes of every usable item, and one problem line per item that was not usable."""
    images: list[bytes] = []
    problems: list[str] = []
    limit = settings.image_max_pixels * max(1, len(items))
    with pixel_ledger(limit, budget, wait_s=60.0):
        for k, item in enumerate(items):
            field = f"data[{k}]"
            try:
                raw = raw_bytes(item, field=field, settings=settings, allow_private=allow_private)
                images.append(to_png(raw, field=field, settings=settings))
            except InputError as exc:
                problems.append(f"{field}: {exc.message}")
    return images, problems
