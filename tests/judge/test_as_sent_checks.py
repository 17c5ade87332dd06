"""The as-sent checks (judge.io.as_sent_png, judge.io.as_sent_jpeg) against the decoder itself:
of randomly damaged files that pass the structure check, every one the checks let through is
one Pillow decodes, to the same pixels as what is sent (issue 48, item 9). The attack pass
ran 36,000 such JPEGs (23,294 let through, none refused by Pillow); this runs a sample."""

from __future__ import annotations

import io
import random
import struct
import warnings
import zlib

import numpy as np
import pytest
from PIL import Image

from judge.io.as_sent import sniff
from judge.io.as_sent_jpeg import clean_jpeg
from judge.io.as_sent_png import clean_png


def photo(w: int = 48, h: int = 32) -> Image.Image:
    y, x = np.mgrid[0:h, 0:w]
    rgb = np.stack([200 * x / w + 20, 180 * y / h + 30, 90 + 0 * x], axis=-1)
    rgb += np.random.default_rng(0).normal(0, 4, rgb.shape)
    return Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8))


def decoded(data: bytes) -> bytes | str:
    """Pillow's pixels, or its error."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            img = Image.open(io.BytesIO(data))
            img.load()
    except Exception as exc:  # any refusal is the outcome compared
        return f"{type(exc).__name__}: {exc}"
    return img.tobytes()


@pytest.mark.parametrize(
    "opts", [{}, {"progressive": True}, {"subsampling": 0, "comment": b"c"}], ids=str
)
def test_damaged_jpeg_headers_that_pass_are_ones_libjpeg_takes(opts: dict) -> None:
    buf = io.BytesIO()
    photo().save(buf, "JPEG", quality=90, **opts)
    data = buf.getvalue()
    # progressive: scan headers are everywhere; sequential: up to the first scan's header
    span = len(data) - 2 if opts.get("progressive") else data.index(b"\xff\xda") + 14
    rng, passed = random.Random(7), 0
    for _ in range(400):
        damaged = bytearray(data)
        for _ in range(rng.randint(1, 2)):
            damaged[rng.randrange(2, span)] = rng.randrange(256)
        if sniff(bytes(damaged)) is None or (sent := clean_jpeg(bytes(damaged))) is None:
            continue
        passed += 1
        pixels = decoded(bytes(damaged))
        assert isinstance(pixels, bytes), pixels
        assert decoded(sent) == pixels
    assert passed > 50


def test_png_rows_pass_exactly_when_pillow_takes_them() -> None:
    """Rows changed at random (filter bytes included) in a valid stream: the check lets a file
    through exactly when Pillow decodes it, and what is sent decodes to the same pixels."""
    buf = io.BytesIO()
    photo().save(buf, "PNG", pnginfo=_text())
    data = buf.getvalue()
    start = data.index(b"IDAT") - 4
    length = struct.unpack(">I", data[start : start + 4])[0]
    rows = zlib.decompress(data[start + 8 : start + 8 + length])
    stride = 1 + 48 * 3
    rng, outcomes = random.Random(3), set()
    for _ in range(150):
        changed = bytearray(rows)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(rows) // stride) * stride if rng.random() < 0.5 else None
            changed[rng.randrange(len(rows)) if at is None else at] = rng.randrange(8)
        body = zlib.compress(bytes(changed))
        idat = struct.pack(">I", len(body)) + b"IDAT" + body
        whole = data[:start] + idat + struct.pack(">I", zlib.crc32(idat[4:]))
        whole += data[start + 12 + length :]
        sent, pixels = clean_png(whole), decoded(whole)
        assert (sent is not None) == isinstance(pixels, bytes), pixels
        if sent is not None:
            assert b"seed" not in sent and decoded(sent) == pixels
        outcomes.add(sent is None)
    assert outcomes == {True, False}


def _text() -> object:
    from PIL.PngImagePlugin import PngInfo

    info = PngInfo()
    info.add_text("prompt", "seed 315")
    return info
