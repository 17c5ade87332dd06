"""A plain JPEG about to go out as sent: its tables, frame and scans checked as the decoder
checks them, and its metadata dropped.

:func:`judge.io.as_sent.sniff` checks that every segment is whole; libjpeg refuses more than
that. :func:`clean_jpeg` sends a file to the decoder (which refuses it with its own error)
unless:

- every quantisation table is 8- or 16-bit, numbered 0–3, and its segment holds whole tables;
  every Huffman table is DC or AC, numbered 0–3, of at most 256 codes that fit their lengths
  (DC symbols at most 15), its segment whole tables; a restart interval segment is 4 bytes;
- the frame's segment is exactly its three components, distinct, sampling factors 1–4 that
  divide the largest (and 10 blocks an MCU at most), each naming a quantisation table defined
  before the first scan; width and height at most 65,500;
- every scan names 1–4 distinct components of the frame, each with a DC and an AC table
  already defined; a sequential frame's scans cover the whole spectrum (0–63, no successive
  approximation) and each component once; a progressive scan's spectral and approximation
  fields are ones libjpeg accepts.

libjpeg takes damaged entropy-coded data (it warns, and fills what it cannot decode), so such
a file is sent as the decoder would take it. **What is sent**: the frame, tables, scans and
their data byte for byte, and the JFIF header without its thumbnail; comments and every other
application block (XMP, Photoshop, a JFXX thumbnail, vendor blocks) are dropped, as the
judge's own re-encoding drops them.

Example:
    >>> import io
    >>> from PIL import Image
    >>> buf = io.BytesIO()
    >>> Image.new("RGB", (16, 16), "red").save(buf, "JPEG", comment=b"made by m1, seed 315")
    >>> sent = clean_jpeg(buf.getvalue())
    >>> b"seed 315" in buf.getvalue(), b"seed 315" in sent, Image.open(io.BytesIO(sent)).size
    (True, False, (16, 16))
"""

from __future__ import annotations

from judge.io.as_sent import _JPEG_FRAMES, _NEXT_MARKER

_JFIF_HEADER = 14
"""``JFIF\\0``, version, units, densities and the thumbnail's size: what Pillow reads."""
_MAX_SIDE = 65500
"""libjpeg's JPEG_MAX_DIMENSION."""


class _Refused(Exception):
    """The decoder would refuse (or might): decode the file instead."""


def clean_jpeg(data: bytes) -> bytes | None:
    """``data`` without comments and application blocks other than the JFIF header (``data``
    itself when it has none), when libjpeg takes its tables, frame and scans; ``None``: decode
    it instead. ``data`` passed :func:`judge.io.as_sent.sniff`."""
    try:
        return _walk(data)
    except (_Refused, IndexError):
        return None


def _walk(data: bytes) -> bytes:
    kept = [b"\xff\xd8"]
    dropped = False
    state = _State()
    pos, end = 2, len(data)
    while pos < end:
        while data[pos] == 0xFF:  # fill bytes before the marker
            pos += 1
        marker = data[pos]
        pos += 1
        if marker == 0xD9:
            kept.append(b"\xff\xd9")
            break
        length = int.from_bytes(data[pos : pos + 2], "big")
        segment = data[pos + 2 : pos + length]
        stop = pos + length
        whole = data[pos - 2 : stop]  # the marker (without fill bytes) and its segment
        if marker == 0xDA:
            state.scan(segment)
            found = _NEXT_MARKER.search(data, stop)
            if found is None:  # the pattern also matches at the end of the data
                raise _Refused
            stop = found.start()
            whole = data[pos - 2 : stop]
        elif marker == 0xE0 and segment.startswith(b"JFIF"):
            if len(segment) < _JFIF_HEADER or segment[4] != 0:
                raise _Refused("a JFIF header Pillow or libjpeg reads otherwise")
            if len(segment) > _JFIF_HEADER or segment[12:14] != b"\x00\x00":
                whole = b"\xff\xe0\x00\x10" + segment[:12] + b"\x00\x00"  # no thumbnail
                dropped = True
        elif 0xE0 <= marker <= 0xEF or marker == 0xFE:
            dropped, whole = True, b""
        else:
            state.segment(marker, segment)
        kept.append(whole)
        pos = stop
    state.finish()
    return b"".join(kept) if dropped else data


class _State:
    """The tables, frame and scans seen so far, checked as libjpeg checks them."""

    def __init__(self) -> None:
        self.quant: set[int] = set()
        self.huffman: set[tuple[int, int]] = set()
        self.components: dict[int, int] = {}  # id -> quantisation table
        self.progressive = False
        self.scanned: list[int] = []

    def segment(self, marker: int, segment: bytes) -> None:
        if marker == 0xDB:
            self._quant(segment)
        elif marker == 0xC4:
            self._huffman(segment)
        elif marker == 0xDD:
            if len(segment) != 2:
                raise _Refused("a restart interval segment of the wrong size")
        elif marker in _JPEG_FRAMES:
            self._frame(marker, segment)

    def _quant(self, s: bytes) -> None:
        while s:
            precision, table = s[0] >> 4, s[0] & 15
            size = 1 + 64 * (precision + 1)
            if precision > 1 or table > 3 or len(s) < size:
                raise _Refused("a quantisation table libjpeg refuses")
            self.quant.add(table)
            s = s[size:]

    def _huffman(self, s: bytes) -> None:
        while s:
            kind, table = s[0] >> 4, s[0] & 15
            counts = s[1:17]
            total = sum(counts)
            if kind > 1 or table > 3 or len(counts) != 16 or total > 256 or len(s) < 17 + total:
                raise _Refused("a Huffman table libjpeg refuses")
            code = 0
            for bits, count in enumerate(counts, start=1):  # canonical codes must fit
                code += count
                if code > 1 << bits:
                    raise _Refused("a Huffman table whose codes do not fit their lengths")
                code <<= 1
            if kind == 0 and any(symbol > 15 for symbol in s[17 : 17 + total]):
                raise _Refused("a DC Huffman table with a symbol over 15")
            self.huffman.add((kind, table))
            s = s[17 + total :]

    def _frame(self, marker: int, s: bytes) -> None:
        h, w, n = int.from_bytes(s[1:3], "big"), int.from_bytes(s[3:5], "big"), s[5]
        if len(s) != 6 + 3 * n or n != 3 or max(w, h) > _MAX_SIDE:
            raise _Refused("a frame header libjpeg refuses")
        factors = [(s[7 + 3 * i] >> 4, s[7 + 3 * i] & 15) for i in range(n)]
        top_h, top_v = max(f[0] for f in factors), max(f[1] for f in factors)
        blocks = sum(fh * fv for fh, fv in factors)
        if any(not (1 <= fh <= 4 and 1 <= fv <= 4) for fh, fv in factors):
            raise _Refused("sampling factors out of range")
        if any(top_h % fh or top_v % fv for fh, fv in factors) or blocks > 10:
            raise _Refused("sampling factors libjpeg cannot upsample")
        self.components = {s[6 + 3 * i]: s[8 + 3 * i] for i in range(n)}
        if len(self.components) != n:
            raise _Refused("two components with one id")
        self.progressive = marker == 0xC2

    def scan(self, s: bytes) -> None:
        n = s[0]
        if not 1 <= n <= 4 or len(s) != 4 + 2 * n:
            raise _Refused("a scan header libjpeg refuses")
        ids = [s[1 + 2 * i] for i in range(n)]
        tables = [s[2 + 2 * i] for i in range(n)]
        start, stop, approx = s[1 + 2 * n], s[2 + 2 * n], s[3 + 2 * n]
        high, low = approx >> 4, approx & 15
        if len(set(ids)) != n or any(i not in self.components for i in ids):
            raise _Refused("a scan of components the frame does not have")
        if any(self.components[i] not in self.quant for i in ids):
            raise _Refused("a component whose quantisation table is not defined")
        if any(self._needs(t, start, high) - self.huffman for t in tables):
            raise _Refused("a scan whose Huffman tables are not defined")
        if self.progressive:
            bad = stop > 63 or start > stop or (start == 0) != (stop == 0)
            bad = bad or (start > 0 and n != 1) or high > 13 or low > 13
            if bad or (high and low != high - 1):
                raise _Refused("progressive scan fields libjpeg refuses")
        elif (start, stop, high, low) != (0, 63, 0, 0):
            raise _Refused("a sequential scan that is not the whole spectrum")
        self.scanned += ids

    def _needs(self, tables: int, start: int, high: int) -> set[tuple[int, int]]:
        """The Huffman tables a scan uses: DC and AC in a sequential frame; in a progressive
        one, the DC table for a first DC scan, none for a DC refinement, the AC table else."""
        dc, ac = (0, tables >> 4), (1, tables & 15)
        if not self.progressive:
            return {dc, ac}
        if start == 0:
            return set() if high else {dc}
        return {ac}

    def finish(self) -> None:
        if not self.progressive and sorted(self.scanned) != sorted(self.components):
            raise _Refused("a sequential frame whose scans do not cover each component once")
