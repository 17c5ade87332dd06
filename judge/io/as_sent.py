"""Images that can go to the model's provider as sent: checked without inflating their pixels.

Decoding a 1024² photograph sent as PNG costs 25–40 ms of CPU, most of what the service
spends on a submission, and re-encoding it as JPEG a few more; when the provider takes the
file as it is and no step of the judge needs its pixels, neither is needed. :func:`sniff`
reads the structure of a PNG or JPEG file without decompressing anything and says whether
it is plain enough to send as it is:

- **PNG**: the signature; an ``IHDR`` first (width and height above 0, 8 bits per channel,
  RGB or RGBA, standard compression and filter, interlaced or not); every chunk whole, with
  its CRC-32 checked; one run of ``IDAT`` chunks; ``IEND`` last with nothing after it. A
  palette, transparency key, colour profile or gamma (``PLTE``, ``tRNS``, ``iCCP``, ``gAMA``,
  ``cHRM``, ``sBIT``), an ``eXIf`` block, an animation (``acTL``) or any other critical chunk
  is not plain: such a file is decoded as before.
- **JPEG**: ``SOI`` first; every marker segment whole (its length inside the file); one
  baseline, extended or progressive Huffman frame (``SOF0``–``SOF2``) of 8 bits and three
  components with width and height above 0, before the first scan; quantisation and Huffman
  tables before the first scan; each scan's entropy-coded data followed by a marker (byte
  stuffing and restart markers skipped); ``EOI`` last with nothing after it. An ``APP1`` Exif
  block, any ``APP2`` block (an ICC profile, or the index of a multi-picture file) or an
  Adobe ``APP14`` block is not plain.

What this does not check: that the compressed data inside the ``IDAT`` chunks or the scans
decodes. Before a file that passes is sent, :mod:`judge.io.as_sent_png` inflates a PNG's image
data and :mod:`judge.io.as_sent_jpeg` checks a JPEG's tables and scans as libjpeg does, and
both drop the metadata; every file that fails a check, and every other format, is decoded as
before, so the errors of damaged, truncated, oversized and foreign files are exactly the
decoder's.

Example:
    >>> import io
    >>> from PIL import Image
    >>> buf = io.BytesIO(); Image.new("RGB", (64, 32), "red").save(buf, "PNG")
    >>> sniff(buf.getvalue())
    Sniffed(format='PNG', mime='image/png', size=(64, 32))
    >>> sniff(buf.getvalue()[:-5]) is None  # truncated: IEND cut short
    True
"""

from __future__ import annotations

import re
import struct
import zlib
from dataclasses import dataclass

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_PLAIN_ANCILLARY_REFUSED = {b"tRNS", b"iCCP", b"gAMA", b"cHRM", b"sBIT", b"eXIf", b"acTL"}
"""Ancillary chunks that change what a decoder shows (or animate): such files are decoded."""
_JPEG_FRAMES = {0xC0, 0xC1, 0xC2}
"""Baseline, extended sequential and progressive Huffman frames (8 bits here)."""
_JPEG_TABLES = {0xC4, 0xDB, 0xDD, 0xFE}
"""DHT, DQT, DRI and COM: segments allowed anywhere before EOI."""
_NEXT_MARKER = re.compile(rb"\xff(?!\x00|[\xd0-\xd7]|\xff)")
"""The end of a scan's entropy-coded data: 0xFF not stuffed, not a restart, not fill."""


@dataclass(frozen=True)
class Sniffed:
    """A file that can be sent as it is: its format, MIME type and size in pixels."""

    format: str
    mime: str
    size: tuple[int, int]


def sniff(data: bytes) -> Sniffed | None:
    """The file's format and size when its structure checks out and it is plain enough to
    send as it is (see the module's list); ``None`` for anything else."""
    try:
        if data.startswith(PNG_SIGNATURE):
            return _png(memoryview(data))
        if data.startswith(b"\xff\xd8"):
            return _jpeg(data)
    except (struct.error, IndexError):
        return None
    return None


def _png(view: memoryview) -> Sniffed | None:
    pos, end = len(PNG_SIGNATURE), len(view)
    size: tuple[int, int] | None = None
    idat_runs, previous = 0, b""
    while pos + 12 <= end:
        length, kind = struct.unpack_from(">I4s", view, pos)
        if length > 0x7FFFFFFF or pos + 12 + length > end:
            return None
        crc = struct.unpack_from(">I", view, pos + 8 + length)[0]
        if zlib.crc32(view[pos + 4 : pos + 8 + length]) != crc:
            return None
        if size is None:
            if kind != b"IHDR" or length != 13:
                return None
            w, h, depth, colour, method, filt, interlace = struct.unpack_from(
                ">IIBBBBB", view, pos + 8
            )
            plain = depth == 8 and colour in (2, 6) and method == 0 and filt == 0
            if not (plain and interlace in (0, 1) and w > 0 and h > 0):
                return None
            size = (w, h)
        elif kind == b"IEND":
            ok = length == 0 and idat_runs == 1 and pos + 12 == end
            return Sniffed("PNG", "image/png", size) if ok else None
        elif kind == b"IDAT":
            idat_runs += previous != b"IDAT"
        elif kind == b"IHDR" or kind in _PNG_PLAIN_ANCILLARY_REFUSED or kind[0] < 0x61:
            return None  # a second header, a chunk that changes the pixels, a critical chunk
        previous = kind
        pos += 12 + length
    return None  # no IEND: truncated


def _jpeg(data: bytes) -> Sniffed | None:
    pos, end = 2, len(data)
    size: tuple[int, int] | None = None
    tables: set[int] = set()
    while pos < end:
        if data[pos] != 0xFF:
            return None
        while pos < end and data[pos] == 0xFF:  # fill bytes before a marker
            pos += 1
        if pos >= end:
            return None
        marker = data[pos]
        pos += 1
        if marker == 0xD9:  # EOI
            return Sniffed("JPEG", "image/jpeg", size) if size and pos == end else None
        if pos + 2 > end:
            return None
        length = int.from_bytes(data[pos : pos + 2], "big")
        if length < 2 or pos + length > end:
            return None
        segment = data[pos + 2 : pos + length]
        if marker in _JPEG_FRAMES:
            if size is not None or len(segment) < 6:
                return None
            precision, h, w, components = struct.unpack_from(">BHHB", segment)
            if precision != 8 or components != 3 or w == 0 or h == 0:
                return None
            size = (w, h)
        elif marker == 0xDA:  # SOS: the scan's data runs to the next real marker
            if size is None or not {0xC4, 0xDB} <= tables:
                return None
            found = _NEXT_MARKER.search(data, pos + length)
            if found is None:
                return None  # truncated inside the scan
            pos = found.start()
            continue
        elif marker in _JPEG_TABLES:
            tables.add(marker)
        elif 0xE0 <= marker <= 0xEF:
            if _refused_app(marker, segment):
                return None
        else:
            return None  # another frame type, a restart or reserved marker out of place
        pos += length
    return None  # no EOI: truncated


def _refused_app(marker: int, segment: bytes) -> bool:
    """APPn blocks that change how the pixels are shown or what the file is: Exif
    (orientation), any APP2 (an ICC profile; the MPF index of a multi-picture file), Adobe."""
    return (marker == 0xE1 and segment.startswith(b"Exif\x00")) or marker in (0xE2, 0xEE)
