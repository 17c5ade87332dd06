"""The fast decode of plain PNG files (judge.io.png_fast): Pillow's pixels bit for bit, and for
every file it does not take, Pillow's own outcome (issue 37).

Each file is decoded through ``decode_image`` twice: as it runs, and with the fast path turned
off (Pillow alone, the code before it); the outcomes (the error, or mode, size, pixels and
``info``) must be the same."""

from __future__ import annotations

import io
import os
import struct
import zlib

import numpy as np
import pytest
from PIL import Image

from judge.errors import InputError
from judge.io import images, png_fast
from judge.io.png_fast import decode_plain_png


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png(
    w: int,
    h: int,
    colour: int,
    filtered: bytes,
    *,
    depth: int = 8,
    interlace: int = 0,
    before: bytes = b"",
    after: bytes = b"",
    split: int = 0,
    compressed: bytes | None = None,
) -> bytes:
    """A PNG written by hand: ``filtered`` (filter byte and samples per row) deflated into
    IDAT chunks (of ``split`` bytes each, when given), with chunks ``before`` and ``after``."""
    z = zlib.compress(filtered, 6) if compressed is None else compressed
    parts = [z[i : i + split] for i in range(0, len(z), split)] if split else [z]
    ihdr = struct.pack(">IIBBBBB", w, h, depth, colour, 0, 0, interlace)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + before
        + b"".join(chunk(b"IDAT", p) for p in parts)
        + after
        + chunk(b"IEND", b"")
    )


def rows(w: int, h: int, channels: int, *, filters: range = range(5), seed: int = 0) -> bytes:
    """Random samples, each row with a random filter type from ``filters``: every filter is
    valid for any bytes, so these are valid image data of every filter."""
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 256, (h, 1 + w * channels), dtype=np.uint8)
    data[:, 0] = rng.choice(np.array(list(filters), dtype=np.uint8), h)
    return data.tobytes()


def photo(size: tuple[int, int], mode: str = "RGB", seed: int = 0) -> Image.Image:
    """Gradients with noise, saved by Pillow with its adaptive filters."""
    w, h = size
    y, x = np.mgrid[0:h, 0:w]
    planes = [200 * x / w + 20, 180 * y / h + 30, 90 + 0 * x, 255 - 100 * x / w]
    arr = np.stack(planes[: len(mode)], axis=-1)
    arr += np.random.default_rng(seed).normal(0, 6, arr.shape)
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), mode)


def saved(img: Image.Image, **opts: object) -> bytes:
    buf = io.BytesIO()
    img.save(buf, "PNG", **opts)
    return buf.getvalue()


def outcome(data: bytes) -> tuple:
    try:
        img = images.decode_image(data, field="images[0]", charge=False)
    except InputError as exc:
        return ("error", str(exc))
    return ("ok", img.mode, img.size, img.tobytes(), img.info)


def pillow_outcome(data: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple:
    with monkeypatch.context() as patch:
        patch.setattr(images, "decode_plain_png", lambda _data: None)  # the code before
        return outcome(data)


RGB_ROWS = rows(33, 17, 3)
PLAIN = {
    "photo rgb": saved(photo((97, 61))),
    "photo rgba": saved(photo((64, 40), "RGBA")),
    "photo, level 0": saved(photo((50, 30)), compress_level=0),
    "photo, optimized": saved(photo((50, 30)), optimize=True),
    "photo with text and dpi": saved(photo((40, 40)), dpi=(300, 300)),
    "every filter, rgb": png(33, 17, 2, RGB_ROWS),
    "every filter, rgba": png(31, 19, 6, rows(31, 19, 4, seed=1)),
    "one column": png(1, 20, 2, rows(1, 20, 3, seed=2)),  # the longest JUDGE_IMAGE_MAX_ASPECT
    "one row": png(20, 1, 6, rows(20, 1, 4, seed=3)),
    "many IDAT chunks": png(33, 17, 2, RGB_ROWS, split=7),
    "large, several stored blocks": png(200, 120, 6, rows(200, 120, 4, seed=4)),
    "text before the data": png(33, 17, 2, RGB_ROWS, before=chunk(b"tEXt", b"k\x00v")),
}


@pytest.mark.parametrize("name", sorted(PLAIN))
def test_plain_files_decode_fast_to_pillows_pixels(name: str, monkeypatch) -> None:
    data = PLAIN[name]
    assert decode_plain_png(data) is not None  # the fast path took it
    got = outcome(data)
    assert got[0] == "ok" and got == pillow_outcome(data, monkeypatch)


BAD_FILTER = bytearray(RGB_ROWS)
BAD_FILTER[0] = 5
STREAM = zlib.compress(RGB_ROWS)
BAD_CRC_TEXT = b"\x00\x00\x00\x01tEXtx\x00\x00\x00\x00"
OTHER = {
    "truncated in the data": PLAIN["every filter, rgb"][:-40],
    "truncated in IEND": PLAIN["every filter, rgb"][:-3],
    "bytes after IEND": PLAIN["every filter, rgb"] + b"\x00junk",
    "unknown filter type": png(33, 17, 2, bytes(BAD_FILTER)),
    "stream cut short": png(33, 17, 2, b"", compressed=STREAM[: len(STREAM) // 2]),
    "stream without its checksum": png(33, 17, 2, b"", compressed=STREAM[:-4]),
    "wrong checksum": png(33, 17, 2, b"", compressed=STREAM[:-4] + b"\x00\x00\x00\x00"),
    "corrupt stream": png(33, 17, 2, b"", compressed=STREAM[:2] + b"\xff" * 40 + STREAM[42:]),
    "bytes after the stream": png(33, 17, 2, b"", compressed=STREAM + b"\x00\x01\x02"),
    "a row too many": png(33, 16, 2, RGB_ROWS),
    "a row too few": png(33, 18, 2, RGB_ROWS),
    "not a zlib stream": png(33, 17, 2, b"", compressed=os.urandom(300)),
    "IDAT in two runs": png(33, 17, 2, RGB_ROWS, split=64).replace(
        b"IDAT", b"tEXt", 2
    ),  # the second chunk renamed: the data breaks off
    "text after the data": png(33, 17, 2, RGB_ROWS, after=chunk(b"tEXt", b"k\x00v")),
    "bad CRC after the data": png(
        33, 17, 2, RGB_ROWS, after=b"\x00\x00\x00\x01tEXtx\x00\x00\x00\x00"
    ),
    "interlaced": saved(photo((30, 20)), interlace=1),
    "16 bits": png(8, 8, 2, bytes(8 * (1 + 8 * 6)), depth=16),
    "palette": saved(photo((30, 20)).convert("P")),
    "grey": saved(photo((30, 20)).convert("L")),
    "grey and alpha": saved(photo((30, 20), "RGBA").convert("LA")),
    "transparency key": saved(photo((30, 20)), transparency=(10, 20, 30)),
    "empty file": b"",
    "signature only": b"\x89PNG\r\n\x1a\n",
}


@pytest.mark.parametrize("name", sorted(OTHER))
def test_other_and_damaged_files_get_pillows_outcome(name: str, monkeypatch) -> None:
    data = OTHER[name]
    assert outcome(data) == pillow_outcome(data, monkeypatch)


@pytest.mark.parametrize(
    "name", ["stream cut short", "wrong checksum", "a row too many", "unknown filter type"]
)
def test_damaged_data_is_left_to_pillow(name: str) -> None:
    assert decode_plain_png(OTHER[name]) is None


@pytest.mark.slow
def test_every_cut_of_a_plain_file_gets_pillows_outcome(monkeypatch) -> None:
    data = PLAIN["many IDAT chunks"]
    for cut in range(0, len(data), 5):
        assert outcome(data[:cut]) == pillow_outcome(data[:cut], monkeypatch), cut


@pytest.fixture(params=["one strip", "strips of 3 rows"])
def strips(request, monkeypatch) -> None:
    """Every file both ways: given to libspng whole, and in strips of rows pasted into the
    image (what a file of more than ``STRIP_BYTES`` of rows gets)."""
    if request.param != "one strip":
        monkeypatch.setattr(png_fast, "STRIP_BYTES", 3 * (1 + 33 * 3))


@pytest.mark.parametrize("name", sorted(PLAIN))
def test_in_strips_the_pixels_are_pillows(name: str, strips, monkeypatch) -> None:
    data = PLAIN[name]
    assert decode_plain_png(data) is not None
    assert outcome(data) == pillow_outcome(data, monkeypatch)


@pytest.mark.parametrize("name", sorted(OTHER))
def test_in_strips_damaged_files_get_pillows_outcome(name: str, strips, monkeypatch) -> None:
    data = OTHER[name]
    assert outcome(data) == pillow_outcome(data, monkeypatch)
