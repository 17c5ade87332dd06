"""A faster decode of plain PNG files, with exactly Pillow's pixels and Pillow's errors.

Decoding a 1024² photograph saved as PNG is the largest single cost of a submission: Pillow
inflates it with the system's zlib (1.2.13 on Debian 12, whatever its wheel was built for)
and undoes the rows' filters one byte at a time, 20–30 ms together. For the common case,
an 8-bit RGB or RGBA file that is not interlaced, :func:`decode_plain_png` does the same two
steps faster:

1. the ``IDAT`` data is inflated by ISA-L (``isal``), which must end the zlib stream (its
   Adler-32 checked) with exactly the bytes the header declares (a filter byte and the
   row's samples for every row), nothing more;
2. the rows are unfiltered by libspng (``pyspng``), which is given those bytes again as a
   PNG of stored (uncompressed) deflate blocks, so its own zlib copies instead of inflating;
   at most :data:`STRIP_BYTES` of rows at a time, each strip after the row above it
   (unfiltered), pasted into the image: the memory beside the image is a strip's.

Inflating and unfiltering are pure functions of valid data: the pixels are Pillow's, bit
for bit. Everything else returns ``None`` and the caller decodes with Pillow as before, so
every refusal (truncated or corrupt data, a broken stream, an unknown filter, trailing
bytes) is still Pillow's own: an interlaced, palette, grey, 16-bit or animated file, a
transparency key, ``IDAT`` chunks not in one run, anything but a bare ``IEND`` after them,
a stream that does not inflate to exactly the declared size, or anything libspng refuses.
The chunks before the image data are read by Pillow's ``Image.open`` as before (the caller
opens the file first, for its format and size checks).

Example:
    >>> import io
    >>> from PIL import Image
    >>> buf = io.BytesIO(); Image.new("RGB", (64, 32), "teal").save(buf, "PNG")
    >>> img = decode_plain_png(buf.getvalue())
    >>> img.mode, img.size, img.getpixel((0, 0))
    ('RGB', (64, 32), (0, 128, 128))
    >>> decode_plain_png(buf.getvalue()[:-20]) is None  # truncated: Pillow decides
    True
"""

from __future__ import annotations

import io
import struct

import pyspng
from isal import isal_zlib
from PIL import Image

from judge.io.as_sent import PNG_SIGNATURE
from judge.io.inflate import ZLIB_ERROR, inflate_exactly

IEND_CHUNK = b"\x00\x00\x00\x00IEND\xaeB`\x82"
"""The only chunk the fast path accepts after the image data (empty, its CRC right)."""

_MODES = {2: ("RGB", 3), 6: ("RGBA", 4)}
"""PNG colour type -> Pillow mode and channels, for 8-bit samples."""
_REFUSED_BEFORE_DATA = {b"PLTE", b"tRNS", b"acTL"}
"""Chunks before the image data that send the file to Pillow: a palette or transparency key
(which Pillow reports in ``info``) or an animation."""
_CHANNELS = {2: 3, 6: 4}
_STORED_BLOCK = 65535
"""The largest stored deflate block."""
STRIP_BYTES = 1 << 20
"""The most inflated rows given to libspng at once: a larger image is decoded in strips of
rows pasted into it, so that beside the image only a strip's few copies are held."""


def decode_plain_png(data: bytes) -> Image.Image | None:
    """The RGB(A) image of a plain PNG file (see the module's list), or ``None``: decode
    ``data`` with Pillow."""
    try:
        found = _image_data(memoryview(data))
        if found is None:
            return None
        (w, h), mode, channels, parts = found
        stride = 1 + w * channels
        per = max(1, STRIP_BYTES // stride)
        if per >= h:  # one strip: libspng's array is the image
            pixels = pyspng.load(_stored_png(data[16:29], [inflate_exactly(parts, h * stride,
                                                           _in_block)], h), mode)  # fmt: skip
            return Image.fromarray(pixels, mode) if pixels.shape == (h, w, channels) else None
        return _in_strips(data[16:29], parts, (w, h), mode, per)
    except (ZLIB_ERROR, RuntimeError, ValueError, struct.error, IndexError):
        return None


def _in_strips(
    ihdr: memoryview | bytes, parts: list[memoryview], size: tuple[int, int], mode: str, per: int
) -> Image.Image | None:
    """Decode ``per`` rows at a time into the image: each strip is a PNG of its rows after
    the row above them, unfiltered (filter type None), which the rows' filters refer to."""
    (w, h), channels = size, len(mode)
    stride = 1 + w * channels
    img = Image.new(mode, size)
    strip, y, above = bytearray(), 0, b""
    for piece in inflate_exactly(
        parts, h * stride, lambda done: per * stride - done % (per * stride)
    ):
        strip += piece
        if len(strip) < min(per, h - y) * stride:
            continue
        rows = len(strip) // stride
        pixels = pyspng.load(_stored_png(ihdr, [[above, strip]], rows + bool(above)), mode)
        if pixels.shape != (rows + bool(above), w, channels):
            return None
        img.paste(Image.fromarray(pixels[1:] if above else pixels, mode), (0, y))
        above = b"\x00" + pixels[-1].tobytes()
        y += rows
        strip = bytearray()
    return img if y == h else None


def _in_block(done: int) -> int:
    """Inflate at most the rest of the stored block being written."""
    return _STORED_BLOCK - done % _STORED_BLOCK


def _image_data(view: memoryview) -> tuple[tuple[int, int], str, int, list[memoryview]] | None:
    """Size, mode, channels and the ``IDAT`` chunks' data of a plain file, else ``None``."""
    if view[:8] != PNG_SIGNATURE:
        return None
    length, kind = struct.unpack_from(">I4s", view, 8)
    if kind != b"IHDR" or length != 13:
        return None
    w, h, depth, colour, method, filt, interlace = struct.unpack_from(">IIBBBBB", view, 16)
    if depth != 8 or colour not in _MODES or (method, filt, interlace) != (0, 0, 0):
        return None
    pos, end = 33, len(view)
    while True:  # the chunks Pillow's Image.open has read already, up to the image data
        if pos + 12 > end:
            return None
        length, kind = struct.unpack_from(">I4s", view, pos)
        if kind == b"IDAT":
            break
        if kind in _REFUSED_BEFORE_DATA or kind == b"IEND":
            return None
        pos += 12 + length
    parts = []
    while pos + 12 <= end:
        length, kind = struct.unpack_from(">I4s", view, pos)
        if kind != b"IDAT":
            break
        parts.append(view[pos + 8 : pos + 8 + length])
        pos += 12 + length
    if view[pos:] != IEND_CHUNK:
        return None
    mode, channels = _MODES[colour]
    return (w, h), mode, channels, parts


def _stored_png(ihdr: memoryview | bytes, sources: list, rows: int) -> bytes:
    """A PNG of the header fields ``ihdr`` (width to interlace) with ``rows`` rows whose
    image data is the bytes of ``sources`` (each an iterable of byte strings: the inflated
    stream, or rows held already), in stored deflate blocks: the decoder copies it instead of
    inflating. The file is written straight into a buffer that becomes the ``bytes``
    returned without a copy, so the rows are held once more at most.
    """
    header = bytearray(ihdr)
    header[4:8] = struct.pack(">I", rows)
    stride = 1 + struct.unpack_from(">I", header)[0] * _CHANNELS[header[9]]
    n = rows * stride
    blocks = max(1, -(-n // _STORED_BLOCK))
    zlen = 2 + n + 5 * blocks + 4
    out = io.BytesIO()
    out.write(PNG_SIGNATURE)
    out.write(struct.pack(">I4s", 13, b"IHDR") + header)
    out.write(struct.pack(">I", isal_zlib.crc32(b"IHDR" + header)))
    out.write(struct.pack(">I4s", zlen, b"IDAT"))
    out.write(b"\x78\x01")
    done, adler = 0, 1
    for source in sources:
        for chunk in source:
            view = memoryview(chunk)
            while view:  # split at the stored blocks' bounds
                if done % _STORED_BLOCK == 0:  # a new block starts
                    size = min(_STORED_BLOCK, n - done)
                    out.write(struct.pack("<BHH", done + size >= n, size, size ^ 0xFFFF))
                piece = view[: _in_block(done)]
                out.write(piece)
                adler = isal_zlib.adler32(piece, adler)
                done += len(piece)
                view = view[len(piece) :]
    if n == 0:
        out.write(struct.pack("<BHH", 1, 0, 0xFFFF))
    if done != n:
        raise ValueError(f"{done} bytes of rows, not {n}")
    out.write(struct.pack(">I", adler))
    crc = isal_zlib.crc32(out.getbuffer()[37:])
    out.write(struct.pack(">I", crc))
    out.write(IEND_CHUNK)
    return out.getvalue()
