"""Turn what a Python caller has in hand into image references the engine reads.

A reference is a path, an https URL or a ``data:`` URL. Callers of :func:`judge.score` may
also hold bytes or PIL images: those become ``data:`` URLs (PNG for PIL images; bytes keep
their own format). Nothing is written to disk.

Example:
    >>> from PIL import Image
    >>> image_ref(Image.new("RGB", (4, 4)), "images[0]")[:22]
    'data:image/png;base64,'
    >>> image_ref("photo.jpg", "images[0]")
    'photo.jpg'
"""

from __future__ import annotations

import io
import os
from typing import Any

from PIL import Image

from judge.errors import InputError
from judge.io.data_urls import data_url

ImageLike = str | os.PathLike | bytes | bytearray | Image.Image
_MIME = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp", "GIF": "image/gif",
         "BMP": "image/bmp"}


def image_ref(image: Any, field: str) -> str:
    """A path, URL, bytes or PIL image as a reference string; ``InputError`` otherwise."""
    if isinstance(image, str | os.PathLike):
        return os.fspath(image)
    if isinstance(image, Image.Image):
        buf = io.BytesIO()
        image.save(buf, format="PNG")
        return data_url(buf.getvalue(), "image/png")
    if isinstance(image, bytes | bytearray):
        try:
            with Image.open(io.BytesIO(image)) as img:
                fmt = img.format or ""
        except Exception as exc:  # PIL raises several classes for undecodable bytes
            raise InputError(field, f"the bytes are not an image PIL can read ({exc})") from exc
        if fmt not in _MIME:
            raise InputError(field, f"format {fmt or '?'} not accepted; use {sorted(_MIME)}")
        return data_url(bytes(image), _MIME[fmt])
    raise InputError(
        field, f"expected a path, URL, bytes or PIL image, got {type(image).__name__}"
    )


def image_refs(images: Any, field: str = "images") -> list[str]:
    """A single image or a sequence of them as reference strings."""
    if images is None:
        return []
    if isinstance(images, str | os.PathLike | bytes | bytearray | Image.Image):
        images = [images]
    return [image_ref(img, f"{field}[{i}]") for i, img in enumerate(images)]


def any_remote(refs: list[str]) -> bool:
    """Whether a reference is an http(s) URL (the caller then allows remote images)."""
    return any(r.startswith(("https://", "http://")) for r in refs)
