"""Helpers every provider dialect of the fake shares: wire errors, images, canonical bodies.

Each fake turns the request it receives (Anthropic, Gemini, Ollama or OpenAI wire format) into
one *canonical* body in the OpenAI chat shape, so that the same
:class:`~tests.fakes.provider.responder.Responder` answers every provider::

    {"model": "m",
     "messages": [{"role": "system", "content": "..."},
                  {"role": "user", "content": [
                      {"type": "text", "text": "..."},
                      {"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}]}],
     "response_format": {"type": "json_schema", "json_schema": {"name": "...", "schema": {...}}}}

Images are decoded and checked on the way in (:func:`decode_image`): a request whose image is
not a real PNG, JPEG, GIF or WebP, or whose declared type does not match its bytes, is refused.
A payload the fake has already decoded (the same base64 text and declared type) is not decoded
again: the verdict on the same bytes is the same, and a judge sends one image with every call
of a burst. A real provider decodes concurrent requests in parallel; the fake, decoding each
one again on its single thread, would hold back replies by its own CPU (a 1024² JPEG: ~7 ms
per call, ~150 ms over one cold ``judge score``) rather than by its latency.

Example::

    info = decode_image(b64_png, declared="image/png", where="messages[0].content[1]")
    info.mime, info.width  # ("image/png", 32)
    text_part("hi"), image_part(info)
"""

from __future__ import annotations

import ast
import base64
import binascii
import hashlib
import io
import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image, UnidentifiedImageError

Body = dict[str, Any]

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)
_PIL_MIME = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
_PROMPT_SCHEMA = re.compile(r"Use this JSON schema:\s*```(?:json)?\s*(.+?)```", re.DOTALL)


class WireError(Exception):
    """A request the real provider would refuse: HTTP ``status`` and a message saying why."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass(frozen=True)
class ImageInfo:
    """One decoded image of a request: its real type, size and payload."""

    mime: str
    width: int
    height: int
    sha256: str
    data: bytes

    @property
    def data_url(self) -> str:
        return f"data:{self.mime};base64,{base64.b64encode(self.data).decode()}"


def sniff_mime(data: bytes) -> str | None:
    """The image type named by the first bytes, or ``None``."""
    for magic, mime in _MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def decode_image(b64: Any, *, declared: str | None, where: str) -> ImageInfo:
    """Decode base64 image bytes and prove they are an image; raise :class:`WireError` if not.

    ``declared`` is the media type the request claims (``None`` when the format has none, as
    Ollama's); a mismatch with the real bytes is refused, as Anthropic refuses it. A payload
    decoded before returns the same :class:`ImageInfo` without decoding it again.
    """
    if not isinstance(b64, str) or not b64:
        raise WireError(f"{where}: image data must be a non-empty base64 string")
    if b64.startswith("data:"):
        raise WireError(f"{where}: image data must be plain base64, not a data URL")
    try:
        return _decoded(b64, declared)
    except _Refused as exc:
        raise WireError(f"{where}: {exc}") from None


class _Refused(Exception):
    """Why a payload is not an acceptable image (:func:`decode_image` adds where it was)."""


@lru_cache(maxsize=32)  # failures are not cached: they raise
def _decoded(b64: str, declared: str | None) -> ImageInfo:
    try:
        data = base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise _Refused(f"image data is not valid base64 ({exc})") from None
    mime = sniff_mime(data)
    if mime is None:
        raise _Refused("the bytes are not a PNG, JPEG, GIF or WebP image")
    try:
        with Image.open(io.BytesIO(data)) as img:
            img.load()  # a full decode: a truncated or corrupt file fails here
            size, fmt = img.size, img.format
    except (UnidentifiedImageError, OSError, SyntaxError) as exc:
        raise _Refused(f"the image could not be decoded ({exc})") from None
    if _PIL_MIME.get(fmt or "") != mime:
        raise _Refused(f"the image header says {mime} but it decodes as {fmt}")
    if declared is not None and declared != mime:
        raise _Refused(f"the image is declared as {declared} but is {mime}")
    digest = hashlib.sha256(data).hexdigest()
    return ImageInfo(mime=mime, width=size[0], height=size[1], sha256=digest, data=data)


def decode_data_url(url: Any, *, where: str) -> ImageInfo:
    """Decode an OpenAI-style ``data:<mime>;base64,<payload>`` image URL."""
    if not isinstance(url, str) or not url.startswith("data:") or ";base64," not in url:
        raise WireError(f"{where}: expected a data:<mime>;base64,<data> URL")
    head, payload = url.split(",", 1)
    return decode_image(payload, declared=head[5:].split(";", 1)[0] or None, where=where)


def text_part(text: str) -> dict[str, Any]:
    """A canonical text part."""
    return {"type": "text", "text": text}


def image_part(info: ImageInfo) -> dict[str, Any]:
    """A canonical image part (an OpenAI ``image_url`` with the decoded image as data URL)."""
    return {"type": "image_url", "image_url": {"url": info.data_url}}


def schema_format(schema: dict[str, Any] | None, name: str = "response") -> dict[str, Any] | None:
    """A canonical ``response_format`` for ``schema`` (``None`` stays ``None``)."""
    if schema is None:
        return None
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}


def schema_stated_in_prompt(messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A JSON schema written into the prompt, as litellm does for models it believes cannot
    take one natively (``Use this JSON schema: ```json {...}``` ``, the dict printed by Python).

    A model reads that text; the fake reads it too, so its answer follows the stated schema.
    """
    for message in reversed(messages):
        content = message.get("content")
        texts = (
            [content]
            if isinstance(content, str)
            else [p.get("text", "") for p in content or [] if isinstance(p, dict)]
        )
        for text in texts:
            found = _PROMPT_SCHEMA.search(str(text))
            if found is None:
                continue
            raw = found.group(1).strip()
            for parse in (json.loads, ast.literal_eval):
                try:
                    value = parse(raw)
                except (ValueError, SyntaxError):
                    continue
                if isinstance(value, dict):
                    return value
    return None


def count_images(canonical: Body) -> int:
    """How many image parts a canonical body carries."""
    return sum(
        1
        for m in canonical.get("messages") or []
        if isinstance(m.get("content"), list)
        for p in m["content"]
        if isinstance(p, dict) and p.get("type") == "image_url"
    )


def tokens(text: str) -> int:
    """A rough token count (4 characters a token, at least 1)."""
    return max(1, math.ceil(len(text) / 4))
