"""Each image of a request prepared once: read, checked, decoded, sized for the judge models'
provider and encoded as a data URL, then shared by every call and every mode that shows it.

Every mode's :meth:`~judge.modes.base.Mode.load_views` goes through :func:`prepare_views`:
one decode per image (checked against the byte, pixel and per-request limits), one resize to
the provider's effective size (:mod:`judge.io.provider_size`; ``image_max_side`` still caps
it) and one encode. The calls of the request reuse the same payload object, so its data URL is
built once and its digest for the response cache (:func:`judge.llm.cache.url_digest`) is taken
once.

**As sent** (``image_as_sent``, off by default). A mode whose steps only show the payloads
to the judge models (``as_sent``) skips the decode and the encode of an image the provider can
take as it is: a plain PNG or JPEG (:func:`judge.io.as_sent.sniff`, which checks its structure
without inflating it), kept at its size by the provider's rule and ``image_max_side``, within
the byte and pixel limits, :data:`AS_SENT_MAX_BASE64` and
:data:`AS_SENT_MAX_BYTES_PER_PIXEL`, that the decoder would take (a PNG's image data inflated
and checked, a JPEG's tables and scans checked: :mod:`judge.io.as_sent_png`,
:mod:`judge.io.as_sent_jpeg`). The file goes out with its image data as the client sent it,
without its metadata (text and private chunks, comments, XMP), and its pixels are decoded
only if a step asks for them (:class:`LazyImages`). The request's pixel ledger is
charged as for a decode. Anything else is decoded as before.

Example:
    >>> import base64, io
    >>> from PIL import Image
    >>> from judge.config import JudgeSettings
    >>> buf = io.BytesIO(); Image.new("RGB", (2048, 1024), "red").save(buf, "PNG")
    >>> url = "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()
    >>> views = prepare_views({"images[0]": url}, JudgeSettings(model="openai/gpt-4o"))
    >>> views.pil["images[0]"].size, views.payloads["images[0]"].width
    ((2048, 1024), 1536)
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from judge.config import JudgeSettings
from judge.io import images
from judge.io.as_sent import Sniffed, sniff
from judge.io.as_sent_jpeg import clean_jpeg
from judge.io.as_sent_png import clean_png
from judge.io.data_urls import data_url
from judge.io.pixel_budget import charge_pixels
from judge.io.provider_size import send_size
from skills.types import DataURL, ImagePayload

AS_SENT_MAX_BASE64 = 5 * 1024 * 1024
"""The largest image sent as it is, in base64 characters: the strictest provider limit known
(Anthropic's 5 MB an image; OpenAI takes 20 MB). A larger file is decoded and re-encoded."""

AS_SENT_MAX_BYTES_PER_PIXEL = 0.5
"""The largest file sent as it is, per pixel. Every call of a request carries the image, so a
file much larger than the JPEG the judge would make (0.13–0.31 bytes a pixel at quality 92 for
the load benchmark's photos) costs more to send 34 times than to decode once: sent as they
are, 1024² photos saved as PNG (0.55–1.76 bytes a pixel) took more service CPU than decoded
(docs/throughput.md). A JPEG or a flat-coloured PNG is below this bound."""


class LazyImages(Mapping[str, Any]):
    """Decoded images by view name; a view held as bytes is decoded on first use (once)."""

    def __init__(self) -> None:
        self._images: dict[str, Any] = {}
        self._pending: dict[str, tuple[bytes, str, JudgeSettings]] = {}
        self._lock = threading.Lock()

    def put(self, name: str, img: Any) -> None:
        """A view decoded already."""
        self._images[name] = img

    def defer(self, name: str, data: bytes, settings: JudgeSettings) -> None:
        """A view checked (and charged to the pixel ledger) but not decoded yet."""
        self._pending[name] = (data, name, settings)

    def __getitem__(self, name: str) -> Any:
        if name in self._images:
            return self._images[name]
        with self._lock:
            if name not in self._images:
                data, field, settings = self._pending[name]  # KeyError: no such view
                self._images[name] = images.decode_image(
                    data, field=field, settings=settings, charge=False
                )
                del self._pending[name]
        return self._images[name]

    def __iter__(self) -> Iterator[str]:
        return iter([*self._images, *self._pending])

    def __len__(self) -> int:
        return len(self._images) + len(self._pending)


@dataclass
class Prepared:
    """A request's images by view name: payloads for models, decoded images for local checks."""

    payloads: dict[str, ImagePayload]
    pil: Mapping[str, Any]


def payload_for_models(img: Image.Image, settings: JudgeSettings) -> ImagePayload:
    """``img`` at the size the judge models' provider keeps (capped by ``image_max_side``),
    encoded once."""
    size = send_size(img.size, settings)
    # one resample: the provider's size only where it is below the image_max_side cap
    if max(size) < min(max(img.size), settings.image_max_side):
        img = img.resize(size, Image.Resampling.LANCZOS)
    return images.to_payload(img, settings.image_max_side)


def sendable_as_is(data: bytes, settings: JudgeSettings) -> tuple[Sniffed, bytes] | None:
    """What :func:`sniff` finds when ``data`` can go to the judge models as it is (its size
    kept by the provider's rule and ``image_max_side``, within the byte and pixel limits, and
    the decoder would take it), and the bytes to send: ``data`` without its metadata
    (:func:`~judge.io.as_sent_png.clean_png`, :func:`~judge.io.as_sent_jpeg.clean_jpeg`)."""
    if len(data) > settings.image_max_bytes or (len(data) + 2) // 3 * 4 > AS_SENT_MAX_BASE64:
        return None
    found = sniff(data)
    if found is None:
        return None
    w, h = found.size
    if len(data) > AS_SENT_MAX_BYTES_PER_PIXEL * w * h:
        return None
    bomb = Image.MAX_IMAGE_PIXELS is not None and w * h > Image.MAX_IMAGE_PIXELS
    if bomb or w * h > settings.image_max_pixels or max(w, h) > settings.image_max_side:
        return None
    if max(w, h) > settings.image_max_aspect * min(w, h):
        return None  # the decode path refuses it, with its size
    if send_size(found.size, settings) != found.size:
        return None
    sent = clean_png(data) if found.format == "PNG" else clean_jpeg(data)
    return None if sent is None else (found, sent)


def _as_sent(ref: str, data: bytes, found: Sniffed, original: bool) -> ImagePayload:
    """The payload of a file sent as it is: the client's own data URL when it is one and
    nothing was taken out of it (``original``)."""
    prefix = f"data:{found.mime};base64,"
    url = ref if original and ref.startswith(prefix) else data_url(data, found.mime)
    w, h = found.size
    return ImagePayload(DataURL(url), hashlib.sha256(data).hexdigest(), w, h)


def prepare_views(
    refs: Mapping[str, str],
    settings: JudgeSettings,
    base_dir: Path | None = None,
    *,
    keep_pil: frozenset[str] | None = None,
    as_sent: bool = False,
) -> Prepared:
    """Prepare every image reference (view name -> path, data URL or URL) once.

    ``keep_pil`` names the views whose decoded image local checks need (default: all).
    ``as_sent``: the caller's steps only show the payloads to the judge models, so a file
    the provider takes as it is is sent so, and decoded only if its image is asked for.
    """
    payloads: dict[str, ImagePayload] = {}
    pil = LazyImages()
    direct = as_sent and settings.image_as_sent and settings.resolved_backend() == "llm"
    for name, ref in refs.items():
        keep = keep_pil is None or name in keep_pil
        if direct:
            data = images.read_image_bytes(ref, field=name, settings=settings, base_dir=base_dir)
            sendable = sendable_as_is(data, settings)
            if sendable is not None:
                found, sent = sendable
                charge_pixels(found.size[0] * found.size[1], name)
                payloads[name] = _as_sent(ref, sent, found, sent is data)
                if keep:
                    pil.defer(name, data, settings)
                continue
            img = images.decode_image(data, field=name, settings=settings)
        else:
            img = images.load_pil(ref, field=name, settings=settings, base_dir=base_dir)
        payloads[name] = payload_for_models(img, settings)
        if keep:
            pil.put(name, img)
    return Prepared(payloads=payloads, pil=pil)
