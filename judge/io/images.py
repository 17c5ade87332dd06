"""Load and vet submission images: local paths, ``data:`` URLs and (when enabled) https URLs.

Every image is decoded once, checked against byte and pixel limits (decompression bombs) and
charged to the request's pixel ledger (:mod:`judge.io.pixel_budget`),
downscaled to ``image_max_side`` and re-encoded as a data URL for vision models. A plain
8-bit RGB(A) PNG is decoded by :mod:`judge.io.png_fast` (the same pixels, faster); every
other file, and every file that fast path does not take, by Pillow.

Example:
    >>> import base64, io
    >>> from PIL import Image
    >>> buf = io.BytesIO(); Image.new("RGB", (4, 4), "red").save(buf, "PNG")
    >>> url = "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()
    >>> load_image(url, field="images[0]").width
    4
"""

from __future__ import annotations

import binascii
import hashlib
import io
import warnings
from pathlib import Path

import pybase64
from PIL import Image, UnidentifiedImageError

from judge.config import JudgeSettings
from judge.errors import InputError, too_big
from judge.io.data_urls import data_url
from judge.io.pixel_budget import charge_pixels
from judge.io.png_fast import decode_plain_png
from skills.types import DataURL, ImagePayload

ALLOWED_FORMATS = {"PNG", "JPEG", "WEBP", "GIF", "BMP"}


def _decode_data_url(ref: str, field: str, max_bytes: int) -> bytes:
    header, _, payload = ref.partition(",")
    if ";base64" not in header:
        raise InputError(field, "data URLs must be base64-encoded (data:image/png;base64,...)")
    if len(payload) > max_bytes * 4 // 3 + 16:
        size = len(payload) * 3 // 4 - payload[-2:].count("=")  # what the base64 decodes to
        raise InputError(field, too_big(f"{size} bytes", max_bytes, "bytes"))
    return _b64decode_strict(payload, field)


def _b64decode_strict(payload: str, field: str) -> bytes:
    """Base64 with only the alphabet and correct padding, as ``binascii`` strict mode has it.

    pybase64's vector decoder validates and decodes megabytes in a fraction of a millisecond
    (``binascii`` takes several); it accepts a subset of what strict mode accepts, with the
    same bytes, so whatever it refuses is decided by ``binascii`` itself.
    """
    try:
        return pybase64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError, TypeError):
        pass
    try:
        return binascii.a2b_base64(payload, strict_mode=True)
    except (binascii.Error, ValueError):
        raise InputError(field, "data URL payload is not valid base64") from None


def _read_path(ref: str, field: str, base_dir: Path | None, max_bytes: int) -> bytes:
    path = Path(ref)
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    try:
        if not path.exists():
            hint = (
                f"; relative paths resolve against base_dir ({base_dir})"
                if base_dir is not None and not Path(ref).is_absolute()
                else "; relative paths resolve against the current folder: pass "
                "base_dir= (the submission file's folder) or an absolute path"
                if not Path(ref).is_absolute()
                else ""
            )
            raise InputError(
                field,
                f"image file {str(path.resolve())[:300]!r} does not exist{hint}",
            )
        if not path.is_file():
            raise InputError(field, f"{str(path)[:300]!r} is not a regular file")
        size = path.stat().st_size
        if size > max_bytes:
            raise InputError(field, too_big(f"{size} bytes", max_bytes, "bytes"))
        return path.read_bytes()
    except OSError as exc:
        raise InputError(field, f"cannot read image file ({exc.strerror})") from None


def read_image_bytes(
    ref: str, *, field: str, settings: JudgeSettings | None = None, base_dir: Path | None = None
) -> bytes:
    """The raw bytes behind an image reference, or an :class:`InputError`."""
    s = settings or JudgeSettings()
    if not isinstance(ref, str) or not ref.strip():
        raise InputError(field, "expected an image path, data: URL or https URL")
    if ref.startswith("data:"):
        return _decode_data_url(ref, field, s.image_max_bytes)
    if ref.startswith(("http://", "https://")):
        if not s.allow_remote_images:
            raise InputError(
                field,
                "URL images are disabled; send the image as a data: URL "
                "(or enable allow_remote_images where the service permits it)",
            )
        from judge.io.remote import fetch_image  # only when enabled

        return fetch_image(ref, field=field, settings=s)
    if "://" in ref:
        raise InputError(field, f"unsupported image URL scheme in {ref[:40]!r}")
    if not s.allow_local_paths:
        raise InputError(field, "local file paths are not accepted here; send a data: URL")
    return _read_path(ref, field, base_dir, s.image_max_bytes)


def decode_image(
    data: bytes, *, field: str, settings: JudgeSettings | None = None, charge: bool = True
) -> Image.Image:
    """Decode and verify image bytes under the pixel limit; return an RGB(A) image.

    ``charge=False`` for bytes whose pixels the request's ledger was charged for already."""
    s = settings or JudgeSettings()
    if len(data) > s.image_max_bytes:
        raise InputError(field, too_big(f"{len(data)} bytes", s.image_max_bytes, "bytes"))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            probe = Image.open(io.BytesIO(data))
            fmt = probe.format or "?"
            if fmt not in ALLOWED_FORMATS:
                raise InputError(field, f"format {fmt} not accepted; use {sorted(ALLOWED_FORMATS)}")
            w, h = probe.size
            if w * h > s.image_max_pixels:
                raise InputError(
                    field, too_big(f"{w}x{h} = {w * h} pixels", s.image_max_pixels, "pixels")
                )
            check_aspect(w, h, field, s)
            if charge:
                charge_pixels(w * h, field)  # the request's pixel ledger, when one is open
            # one decode; truncated or corrupt data raises here
            img = decode_plain_png(data) if fmt == "PNG" else None
            if img is None:
                probe.load()
                img = probe
            else:
                img.info = probe.info
    except InputError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise InputError(field, "image expands to too many pixels (decompression bomb)") from None
    except UnidentifiedImageError:
        raise InputError(field, "not a readable image (unknown or corrupt format)") from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise InputError(field, f"not a readable image ({type(exc).__name__}: {exc})") from None
    if img.mode not in ("RGB", "RGBA"):
        alpha = "A" in img.getbands() or "transparency" in img.info
        img = img.convert("RGBA" if alpha else "RGB")
    img.info = {}  # comments, text chunks, EXIF, XMP, ICC, resolution: pixels only from here
    return img


def bare(img: Image.Image) -> Image.Image:
    """``img`` without the metadata Pillow's encoders copy from an image's ``info``
    (comments, PNG text chunks, EXIF, XMP, ICC profile, resolution): what the service
    encodes carries pixels only. A copy when there is something to drop.

    >>> img = Image.new("RGB", (2, 2)); img.info["comment"] = b"seed 315"
    >>> bare(img).info, img.info
    ({}, {'comment': b'seed 315'})
    """
    if not img.info:
        return img
    out = img.copy()
    out.info = {}
    return out


def check_aspect(w: int, h: int, field: str, settings: JudgeSettings) -> None:
    """Refuse an image whose long side is more than ``image_max_aspect`` times its short side
    (read from the header: before any pixel is decoded).

    >>> check_aspect(3000, 200, "images[0]", JudgeSettings())
    """
    if max(w, h) > settings.image_max_aspect * max(min(w, h), 1):
        ratio = f"{max(w, h) / max(min(w, h), 1):.1f}".removesuffix(".0")
        raise InputError(
            field,
            f"image is {w}x{h} pixels, {ratio} times longer than "
            f"wide, over the {settings.image_max_aspect:g}:1 limit (JUDGE_IMAGE_MAX_ASPECT "
            "raises it); crop or pad it",
        )


def to_payload(img: Image.Image, max_side: int) -> ImagePayload:
    """Downscale to ``max_side`` and encode as a data URL (PNG with alpha, else JPEG), with
    no metadata (:func:`bare`)."""
    img = bare(img)
    if max(img.size) > max_side:
        img = img.copy()
        img.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    if img.mode == "RGBA":
        img.save(buf, "PNG", optimize=False)
        mime = "image/png"
    else:
        img.save(buf, "JPEG", quality=92)
        mime = "image/jpeg"
    raw = buf.getvalue()
    return ImagePayload(
        data_url=DataURL(data_url(raw, mime)),
        sha256=hashlib.sha256(raw).hexdigest(),
        width=img.size[0],
        height=img.size[1],
    )


def load_pil(
    ref: str, *, field: str, settings: JudgeSettings | None = None, base_dir: Path | None = None
) -> Image.Image:
    """Read and vet one image reference; the decoded RGB(A) image."""
    s = settings or JudgeSettings()
    data = read_image_bytes(ref, field=field, settings=s, base_dir=base_dir)
    return decode_image(data, field=field, settings=s)


def load_image(
    ref: str, *, field: str, settings: JudgeSettings | None = None, base_dir: Path | None = None
) -> ImagePayload:
    """Read, vet and encode one image reference for a vision model."""
    s = settings or JudgeSettings()
    return to_payload(load_pil(ref, field=field, settings=s, base_dir=base_dir), s.image_max_side)
