"""Images sent as they are (judge.io.as_sent, judge.io.prepare with ``image_as_sent``): a plain
PNG or JPEG goes to the provider undecoded; every other file, and every damaged one, is decoded
as before, with the decoder's errors (issue 37)."""

from __future__ import annotations

import base64
import io
import struct
import zlib

import numpy as np
import pytest
from PIL import Image

from judge.config import JudgeSettings
from judge.errors import InputError
from judge.io.as_sent import sniff
from judge.io.pixel_budget import pixel_ledger
from judge.io.prepare import prepare_views
from tests.conftest import submission

VLLM = JudgeSettings(model="hosted_vllm/qwen", api_base="http://127.0.0.1:9/v1")
ON = VLLM.merged(image_as_sent=True)


def photo(size: tuple[int, int] = (96, 64), seed: int = 0) -> Image.Image:
    """Smooth gradients with noise: compresses like a photograph, not like a flat fill."""
    w, h = size
    y, x = np.mgrid[0:h, 0:w]
    rgb = np.stack([200 * x / w + 20, 180 * y / h + 30, 90 + 0 * x], axis=-1)
    rgb += np.random.default_rng(seed).normal(0, 4, rgb.shape)
    return Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8))


def encode(img: Image.Image, fmt: str, **opts: object) -> bytes:
    buf = io.BytesIO()
    img.save(buf, fmt, **opts)
    return buf.getvalue()


def url(data: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64," + base64.b64encode(data).decode()


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def with_chunk(png: bytes, extra: bytes) -> bytes:
    """``png`` with ``extra`` (whole chunks) inserted right after IHDR."""
    return png[:33] + extra + png[33:]


FLAT = encode(Image.new("RGB", (64, 48), "teal"), "PNG")
JPEG = encode(photo(), "JPEG", quality=90)
PROGRESSIVE = encode(photo(), "JPEG", quality=90, progressive=True)
RGBA = encode(Image.new("RGBA", (40, 40), (10, 200, 30, 128)), "PNG")


@pytest.mark.parametrize(
    ("data", "fmt", "size"),
    [
        (FLAT, "PNG", (64, 48)),
        (RGBA, "PNG", (40, 40)),
        (encode(photo(), "PNG"), "PNG", (96, 64)),
        (JPEG, "JPEG", (96, 64)),
        (PROGRESSIVE, "JPEG", (96, 64)),
        (encode(Image.new("RGB", (64, 48), "teal"), "PNG", interlace=1), "PNG", (64, 48)),
    ],
)
def test_plain_files_are_read_without_inflating(data: bytes, fmt: str, size: tuple) -> None:
    found = sniff(data)
    assert found is not None and (found.format, found.size) == (fmt, size)


def _refused_files() -> dict[str, bytes]:
    png = encode(photo(), "PNG")
    flipped = bytearray(png)
    flipped[len(png) // 2] ^= 0x40  # inside IDAT: its CRC no longer matches
    exif = Image.Exif()
    exif[0x0112] = 6  # rotated: a provider might turn it, the judge's JPEG does not
    return {
        "truncated png": png[: len(png) - 30],
        "png cut inside IEND": png[:-2],
        "bad crc": bytes(flipped),
        "bytes after IEND": png + b"\x00\x00",
        "palette png": encode(photo().convert("P"), "PNG"),
        "grey png": encode(photo().convert("L"), "PNG"),
        "16-bit png": encode(Image.new("I;16", (8, 8)), "PNG"),
        "png with tRNS": with_chunk(FLAT, chunk(b"tRNS", b"\x00\x01\x00\x02\x00\x03")),
        "png with gAMA": with_chunk(FLAT, chunk(b"gAMA", struct.pack(">I", 45455))),
        "png with iCCP": with_chunk(FLAT, chunk(b"iCCP", b"p\x00\x00" + zlib.compress(b"x"))),
        "animated png": with_chunk(FLAT, chunk(b"acTL", struct.pack(">II", 1, 0))),
        "unknown critical chunk": with_chunk(FLAT, chunk(b"ZZZZ", b"")),
        "truncated jpeg": JPEG[: len(JPEG) // 2],
        "jpeg without EOI": JPEG[:-2],
        "bytes after EOI": JPEG + b"\xff\xd8",
        "grey jpeg": encode(photo().convert("L"), "JPEG"),
        "cmyk jpeg": encode(photo().convert("CMYK"), "JPEG"),
        "jpeg with exif": encode(photo(), "JPEG", exif=exif),
        "jpeg with icc": encode(photo(), "JPEG", icc_profile=b"\x00" * 200),
        "gif": encode(photo(), "GIF"),
        "webp": encode(photo(), "WEBP"),
        "bmp": encode(photo(), "BMP"),
        "text": b"not an image at all",
        "empty": b"",
    }


REFUSED = _refused_files()
BOMB = FLAT[:8] + chunk(b"IHDR", struct.pack(">IIBBBBB", 100000, 100000, 8, 2, 0, 0, 0)) + FLAT[33:]
"""Whole and plain, but its header declares 10^10 pixels: over every limit, so decoded."""
HOSTILE = {**REFUSED, "header of 100000x100000": BOMB}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_anything_else_is_left_to_the_decoder(name: str) -> None:
    assert sniff(REFUSED[name]) is None


def test_a_bomb_is_whole_but_over_the_limits_so_it_is_decoded_and_refused() -> None:
    assert sniff(BOMB) is not None  # the structure is intact; the limits refuse it
    outcome = _outcome(url(BOMB), ON)
    assert outcome == _outcome(url(BOMB), VLLM) and outcome[0] == "error"
    assert "pixels" in outcome[1]


def test_every_cut_of_a_plain_file_is_left_to_the_decoder() -> None:
    for data in (FLAT, JPEG, PROGRESSIVE):
        assert all(sniff(data[:cut]) is None for cut in range(0, len(data), 7))


def _outcome(ref: str, settings: JudgeSettings, limit: int = 10**9) -> tuple:
    """What preparing one image gives: its error, or its size and decoded pixels."""
    try:
        with pixel_ledger(limit):
            views = prepare_views({"images[0]": ref}, settings, as_sent=True)
            pixels = np.asarray(views.pil["images[0]"])
    except InputError as exc:
        return ("error", str(exc))
    payload = views.payloads["images[0]"]
    return ("ok", (payload.width, payload.height), pixels.tobytes())


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_the_errors_and_pixels_of_hostile_files_do_not_change(name: str) -> None:
    """Preparing with and without ``image_as_sent`` gives the same error or the same image."""
    for mime in ("image/png", "image/jpeg"):
        ref = url(HOSTILE[name], mime)
        assert _outcome(ref, ON) == _outcome(ref, VLLM)


def test_a_plain_file_goes_as_sent_and_decodes_only_when_asked() -> None:
    ref = url(JPEG, "image/jpeg")
    views = prepare_views({"images[0]": ref}, ON, as_sent=True)
    payload = views.payloads["images[0]"]
    assert payload.data_url == ref  # the client's own data URL: nothing re-encoded
    assert (payload.width, payload.height) == (96, 64)
    assert views.pil._pending and not views.pil._images  # not decoded yet
    before = prepare_views({"images[0]": ref}, VLLM, as_sent=True)
    assert np.array_equal(np.asarray(views.pil["images[0]"]), np.asarray(before.pil["images[0]"]))
    # the opt-out, another mode (as_sent=False), a wrong type named by the client
    assert before.payloads["images[0]"].data_url != ref
    assert prepare_views({"images[0]": ref}, ON).payloads["images[0]"].data_url != ref
    typed = prepare_views({"images[0]": url(JPEG, "image/png")}, ON, as_sent=True)
    assert typed.payloads["images[0]"].data_url == url(JPEG, "image/jpeg")


def test_what_the_provider_would_resize_or_a_large_file_is_decoded() -> None:
    big = url(encode(photo((1600, 200)), "JPEG", quality=90), "image/jpeg")
    assert prepare_views({"i": big}, ON, as_sent=True).payloads["i"].data_url != big  # > 1536
    openai = JudgeSettings(model="openai/gpt-4o", image_as_sent=True)  # its rule: short side 768
    tall = url(encode(photo((800, 1000)), "JPEG", quality=90), "image/jpeg")
    assert prepare_views({"i": tall}, openai, as_sent=True).payloads["i"].width == 768
    heavy = url(encode(photo((96, 64), seed=3), "PNG"), "image/png")  # > 0.5 bytes a pixel
    assert prepare_views({"i": heavy}, ON, as_sent=True).payloads["i"].data_url != heavy


def test_the_request_pixel_budget_is_charged_as_for_a_decode() -> None:
    refs = {f"images[{i}]": url(JPEG, "image/jpeg") for i in range(2)}
    with pytest.raises(InputError, match="more than 10000 pixels") as on, pixel_ledger(10_000):
        prepare_views(refs, ON, as_sent=True)
    with pytest.raises(InputError) as off, pixel_ledger(10_000):
        prepare_views(refs, VLLM, as_sent=True)
    assert str(on.value) == str(off.value)


async def test_the_provider_receives_the_clients_file(make_judge, provider) -> None:
    """End to end: with the option on, the JPEG the client sent is what every call carries."""
    sub = submission("CO", n_checks=2)
    sub["images"] = [url(JPEG, "image/jpeg")]
    result = await make_judge(image_as_sent=True).ascore(sub)
    assert result.status == "scored"
    sent = {i.data for c in provider.wire_calls for i in c.images}
    assert sent == {JPEG}
    provider.reset()
    await make_judge().ascore(sub)  # the default: the judge's own JPEG of it
    assert {i.data for c in provider.wire_calls for i in c.images} != {JPEG}


# Issue 48, item 9: what the decoder refuses is refused on this path too, at once; what is
# sent carries the image data byte for byte and no metadata.


def with_idat(png: bytes, body: bytes) -> bytes:
    """``png`` (one IDAT chunk) with ``body`` as its image data, the CRC right."""
    start = png.index(b"IDAT") - 4
    length = struct.unpack(">I", png[start : start + 4])[0]
    return png[:start] + chunk(b"IDAT", body) + png[start + 12 + length :]


def _rows_of(w: int, h: int, filters: bytes) -> bytes:
    return b"".join(bytes([filters[y % len(filters)]]) + b"\x80" * (3 * w) for y in range(h))


UNDECODABLE = {
    "png whose image data is HTML": with_idat(FLAT, b"<html><body>hi</body></html>"),
    "png with an unknown filter": with_idat(FLAT, zlib.compress(_rows_of(64, 48, b"\x00\x07"))),
    "png with a short pHYs": with_chunk(FLAT, chunk(b"pHYs", b"\x00\x01")),
    "jpeg naming an undefined quantisation table": JPEG.replace(
        b"\xff\xc0\x00\x11\x08\x00\x40\x00\x60\x03\x01\x22\x00",
        b"\xff\xc0\x00\x11\x08\x00\x40\x00\x60\x03\x01\x22\x03",
        1,
    ),
}


DECODED_INSTEAD = {  # Pillow takes these; checking them is decoding them (the default path)
    "png with a broken zTXt": with_chunk(FLAT, chunk(b"zTXt", b"k\x00\x00not zlib")),
    "png stream without its end": with_idat(FLAT, zlib.compress(_rows_of(64, 48, b"\x02"))[:-4]),
    "png with more rows than declared": with_idat(FLAT, zlib.compress(_rows_of(64, 49, b"\x01"))),
    "png stream cut short": with_idat(FLAT, zlib.compress(_rows_of(64, 47, b"\x00"))),
}


@pytest.mark.parametrize("name", sorted(UNDECODABLE))
def test_what_the_decoder_refuses_is_refused_before_anything_is_sent(name: str) -> None:
    """The request fails while it is prepared (no step asked for pixels), with the error the
    default path gives."""
    data = UNDECODABLE[name]
    assert sniff(data) is not None  # whole and plain: only a decode finds the fault
    mime = "image/png" if data.startswith(b"\x89PNG") else "image/jpeg"
    with pytest.raises(InputError) as on:
        prepare_views({"images[0]": url(data, mime)}, ON, as_sent=True, keep_pil=frozenset())
    with pytest.raises(InputError) as off:
        prepare_views({"images[0]": url(data, mime)}, VLLM, as_sent=True)
    assert str(on.value) == str(off.value)


def test_pngs_go_without_text_or_private_chunks_and_the_same_image_data() -> None:
    xmp = b"XML:com.adobe.xmp\x00\x00\x00\x00\x00<x:xmpmeta>generated by m1</x:xmpmeta>"
    extra = chunk(b"tEXt", b"prompt\x00seed 315") + chunk(b"prVt", b"secret") + chunk(b"iTXt", xmp)
    extra += chunk(b"tIME", b"\x07\xea\x0c\x06\x17\x00\x00") + chunk(
        b"pHYs", b"\0\0\x0b\x13" * 2 + b"\1"
    )
    data = with_chunk(FLAT, extra)
    views = prepare_views({"images[0]": url(data)}, ON, as_sent=True)
    sent = base64.b64decode(views.payloads["images[0]"].data_url.split(",", 1)[1])
    for secret in (b"seed 315", b"secret", b"generated by m1", b"tIME", b"pHYs"):
        assert secret in data and secret not in sent
    assert sent == FLAT  # IHDR, the IDAT chunk byte for byte, IEND
    interlaced = encode(Image.new("RGB", (64, 48), "teal"), "PNG", interlace=1)
    assert _outcome(url(with_chunk(interlaced, extra)), ON)[0] == "ok"


def test_jpegs_go_without_comments_or_application_blocks_and_the_same_scans() -> None:
    xmp = b"http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta>generated by m1</x:xmpmeta>"
    app1 = b"\xff\xe1" + struct.pack(">H", len(xmp) + 2) + xmp
    ps = b"Photoshop 3.0\x008BIM\x04\x04\x00\x00\x00\x00\x00\x04seed"
    app13 = b"\xff\xed" + struct.pack(">H", len(ps) + 2) + ps
    for base in (JPEG, PROGRESSIVE):
        commented = encode(photo(), "JPEG", quality=90, comment=b"seed 315",
                           progressive=base is PROGRESSIVE)  # fmt: skip
        data = commented[:20] + app1 + app13 + commented[20:]  # after the JFIF header
        views = prepare_views({"images[0]": url(data, "image/jpeg")}, ON, as_sent=True)
        sent = base64.b64decode(views.payloads["images[0]"].data_url.split(",", 1)[1])
        for secret in (b"seed 315", b"generated by m1", b"Photoshop", b"seed"):
            assert secret in data and secret not in sent
        assert sent == base  # the JFIF header, tables, frame and scans byte for byte
        assert np.array_equal(
            np.asarray(views.pil["images[0]"]), np.asarray(Image.open(io.BytesIO(sent)))
        )


@pytest.mark.parametrize("name", sorted(DECODED_INSTEAD))
def test_what_the_check_cannot_vouch_for_is_decoded_as_by_default(name: str) -> None:
    ref = url(DECODED_INSTEAD[name])
    assert _outcome(ref, ON) == _outcome(ref, VLLM)
    on = prepare_views({"images[0]": ref}, ON, as_sent=True).payloads["images[0]"]
    assert on.data_url.startswith("data:image/jpeg")  # the judge's own JPEG of it


async def test_an_html_png_is_a_400_not_a_judged_image(make_judge, provider) -> None:
    """The attack pass's file, end to end: refused with the default path's message, and the
    provider never called."""
    sub = submission("CO", n_checks=2)
    sub["images"] = [url(UNDECODABLE["png whose image data is HTML"])]
    with pytest.raises(InputError) as on:
        await make_judge(image_as_sent=True).ascore(sub)
    with pytest.raises(InputError) as off:
        await make_judge().ascore(sub)
    assert str(on.value) == str(off.value) and not provider.wire_calls
