"""Images of absurd shape are refused from their header, before any pixel is decoded, with
their size and the variable that raises the limit (issue 48, item 13)."""

from __future__ import annotations

import base64
import json
import struct
import zlib

import pytest

from judge.config import JudgeSettings
from judge.errors import InputError
from judge.io import images
from judge.io.prepare import prepare_views


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def strip_png(w: int, h: int, idat: bytes | None = None) -> bytes:
    """An 8-bit RGB PNG of ``w`` x ``h`` black pixels (deflated a slice at a time, so that
    a 1 x 40,000,000 file is made without holding its 160 MB of rows), or with ``idat`` as
    its image data."""
    if idat is None:
        row = b"\x00" * (1 + 3 * w)
        per = max(1, 4_000_000 // len(row))
        z = zlib.compressobj(9)
        parts = [z.compress(row * min(per, h - y)) for y in range(0, h, per)]
        idat = b"".join(parts) + z.flush()
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def refusal(data: bytes, settings: JudgeSettings | None = None) -> str:
    with pytest.raises(InputError) as exc:
        images.decode_image(data, field="images[0]", settings=settings, charge=False)
    return str(exc.value)


def test_a_one_pixel_strip_of_40_million_is_refused_with_its_size():
    """The issue's file: 194 KB, 40,000,000 pixels (within the pixel limit), 1 wide."""
    data = strip_png(1, 40_000_000)
    assert len(data) < 400_000
    message = refusal(data)
    assert "1x40000000 pixels" in message and "JUDGE_IMAGE_MAX_ASPECT" in message
    assert "20:1" in message


def test_the_shape_is_read_from_the_header_before_decoding():
    """Image data that is not even deflate: the refusal is the shape's, not the decoder's."""
    message = refusal(strip_png(30_000, 2, idat=b"<html>not pixels</html>"))
    assert "30000x2 pixels" in message and "15000 times longer than wide" in message


def test_the_variable_raises_the_limit(monkeypatch):
    data = strip_png(400, 4)
    assert "100 times longer" in refusal(data)
    monkeypatch.setenv("JUDGE_IMAGE_MAX_ASPECT", "100")
    img = images.decode_image(data, field="images[0]", settings=JudgeSettings(), charge=False)
    assert img.size == (400, 4)
    assert images.decode_image(strip_png(20, 1), field="i", charge=False).size == (20, 1)


def test_sent_as_it_is_the_strip_gets_the_same_refusal():
    ref = "data:image/png;base64," + base64.b64encode(strip_png(1000, 10)).decode()
    settings = JudgeSettings(
        model="hosted_vllm/qwen", api_base="http://127.0.0.1:9/v1", image_as_sent=True
    )
    with pytest.raises(InputError, match="1000x10 pixels, 100 times longer"):
        prepare_views({"images[0]": ref}, settings, as_sent=True)


@pytest.mark.slow
def test_the_decode_benchmark_runs_small(capsys):
    from benchmarks import decode

    assert decode.main(["--side", "64", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["decoders"]) == {"pillow", "fast"} and out["strip"]["refused"]
    assert "JUDGE_IMAGE_MAX_ASPECT" in out["strip"]["message"]
