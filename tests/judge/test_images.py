"""Image vetting (judge/io/images.py) and submission validation (judge/validation.py)."""

from __future__ import annotations

import base64
import copy
import hashlib
import io
import os

import pytest
from PIL import Image, ImageFile

from judge.config import JudgeSettings
from judge.domain.submission import Submission
from judge.errors import InputError
from judge.io.images import decode_image, load_image, read_image_bytes, to_payload
from judge.validation import load_submission_file, parse_submission
from tests.conftest import png_data_url, submission


def encode(img: Image.Image, fmt: str = "PNG", **kw) -> bytes:
    buf = io.BytesIO()
    img.save(buf, fmt, **kw)
    return buf.getvalue()


def data_url(raw: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64,{base64.b64encode(raw).decode()}"


def noise_png(size: tuple[int, int] = (64, 64)) -> bytes:
    """A PNG that does not compress (random grey pixels)."""
    return encode(Image.frombytes("L", size, os.urandom(size[0] * size[1])))


def payload_image(payload) -> Image.Image:
    """Decode the data URL of an :class:`ImagePayload` back into a PIL image."""
    raw = base64.b64decode(payload.data_url.partition(",")[2])
    return Image.open(io.BytesIO(raw))


# --------------------------------------------------------------------------- limits


def test_decompression_bomb_is_rejected_without_decoding(monkeypatch):
    """A 10000x10000 bilevel PNG is ~12 kB on disk and 100 Mpx decoded."""
    bomb = encode(Image.new("1", (10_000, 10_000)))
    assert len(bomb) < 100_000
    decodes: list[object] = []
    real_load = ImageFile.ImageFile.load

    def counted(self: ImageFile.ImageFile) -> object:
        decodes.append(self.size)
        return real_load(self)

    monkeypatch.setattr(ImageFile.ImageFile, "load", counted)  # "without decoding", counted
    with pytest.raises(InputError) as exc:
        decode_image(bomb, field="images[0]", settings=JudgeSettings(image_max_pixels=1_000_000))
    assert decodes == []
    decode_image(encode(Image.new("1", (100, 100))), field="i", settings=JudgeSettings())
    assert decodes, "the spy saw no decode of an image under the limit: it is not working"
    assert exc.value.field == "images[0]"
    assert "pixels" in exc.value.message


def test_pixel_limit_names_the_dimensions():
    img = encode(Image.new("L", (2000, 2000)))
    with pytest.raises(InputError) as exc:
        decode_image(img, field="images[0]", settings=JudgeSettings(image_max_pixels=1_000_000))
    assert "2000x2000" in exc.value.message and "pixels" in exc.value.message
    assert "1000000" in exc.value.message


def test_pixel_limit_applies_through_load_image(tmp_path):
    (tmp_path / "big.png").write_bytes(encode(Image.new("L", (1200, 1000))))
    with pytest.raises(InputError, match="pixels"):
        load_image(
            "big.png",
            field="images[1]",
            base_dir=tmp_path,
            settings=JudgeSettings(image_max_pixels=1_000_000),
        )


def test_bytes_over_limit_are_rejected():
    raw = noise_png()
    assert len(raw) > 1024
    settings = JudgeSettings(image_max_bytes=1024)
    with pytest.raises(InputError, match="1024") as exc:
        decode_image(raw, field="images[0]", settings=settings)
    assert "bytes" in exc.value.message
    with pytest.raises(InputError, match=r"over the limit of \d+ bytes \(JUDGE_IMAGE_MAX_BYTES"):
        read_image_bytes(data_url(raw), field="images[0]", settings=settings)


def test_file_over_byte_limit_is_rejected_before_reading(tmp_path):
    (tmp_path / "noise.png").write_bytes(noise_png())
    with pytest.raises(InputError) as exc:
        read_image_bytes(
            "noise.png",
            field="images[2]",
            base_dir=tmp_path,
            settings=JudgeSettings(image_max_bytes=1024),
        )
    assert exc.value.field == "images[2]"
    assert "bytes (JUDGE_IMAGE_MAX_BYTES raises it)" in exc.value.message


# --------------------------------------------------------------------------- formats and damage


@pytest.mark.parametrize(("fmt", "mode"), [("TIFF", "RGB"), ("ICO", "RGBA"), ("PPM", "RGB")])
def test_unsupported_format_is_named(fmt, mode):
    raw = encode(Image.new(mode, (16, 16)), fmt)
    with pytest.raises(InputError) as exc:
        decode_image(raw, field="images[0]")
    assert f"format {fmt}" in exc.value.message
    assert "PNG" in exc.value.message  # says what is accepted


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP", "GIF", "BMP"])
def test_accepted_formats_decode(fmt):
    mode = "P" if fmt == "GIF" else "RGB"
    img = decode_image(encode(Image.new(mode, (10, 6)), fmt), field="images[0]")
    assert img.size == (10, 6) and img.mode in ("RGB", "RGBA")


def test_truncated_png_is_not_readable():
    raw = encode(Image.frombytes("RGB", (64, 64), os.urandom(64 * 64 * 3)))
    with pytest.raises(InputError) as exc:
        decode_image(raw[: len(raw) // 2], field="images[0]")
    assert exc.value.field == "images[0]"
    assert "not a readable image" in exc.value.message


@pytest.mark.parametrize(
    "raw", [b"", b"not an image at all", os.urandom(2048)], ids=["empty", "text", "random"]
)
def test_garbage_bytes_are_not_readable(raw):
    with pytest.raises(InputError, match="not a readable image"):
        decode_image(raw, field="images[0]")


# --------------------------------------------------------------------------- encoding


def test_large_image_is_downscaled_to_max_side():
    img = decode_image(encode(Image.new("RGB", (3000, 1000), "blue")), field="images[0]")
    payload = to_payload(img, JudgeSettings().image_max_side)
    assert (payload.width, payload.height) == (1536, 512)
    assert payload_image(payload).size == (1536, 512)
    assert img.size == (3000, 1000)  # the decoded image itself is not modified


def test_custom_max_side_through_load_image():
    url = data_url(encode(Image.new("RGB", (400, 1000), "blue")))
    payload = load_image(url, field="images[0]", settings=JudgeSettings(image_max_side=100))
    assert (payload.width, payload.height) == (40, 100)


def test_small_image_is_not_upscaled():
    payload = load_image(png_data_url(size=(32, 20)), field="images[0]")
    assert (payload.width, payload.height) == (32, 20)


@pytest.mark.parametrize(
    ("mode", "mime", "out_mode"),
    [
        ("RGBA", "image/png", "RGBA"),
        ("LA", "image/png", "RGBA"),
        ("RGB", "image/jpeg", "RGB"),
        ("L", "image/jpeg", "RGB"),
    ],
)
def test_alpha_kept_as_png_else_jpeg(mode, mime, out_mode):
    payload = load_image(data_url(encode(Image.new(mode, (8, 8)))), field="images[0]")
    assert payload.data_url.startswith(f"data:{mime};base64,")
    assert payload_image(payload).mode == out_mode


def test_rgba_alpha_survives():
    img = Image.new("RGBA", (8, 8), (255, 0, 0, 0))
    payload = load_image(data_url(encode(img)), field="images[0]")
    assert payload_image(payload).getpixel((0, 0))[3] == 0


def test_sha256_is_stable_and_matches_the_payload():
    url = png_data_url("green", (40, 30))
    first = load_image(url, field="images[0]")
    second = load_image(url, field="images[0]")
    assert first.sha256 == second.sha256 and first.data_url == second.data_url
    raw = base64.b64decode(first.data_url.partition(",")[2])
    assert first.sha256 == hashlib.sha256(raw).hexdigest()
    other = load_image(png_data_url("blue", (40, 30)), field="images[0]")
    assert other.sha256 != first.sha256


def test_same_image_from_path_and_data_url_hashes_the_same(tmp_path):
    raw = encode(Image.new("RGB", (20, 20), "orange"))
    (tmp_path / "a.png").write_bytes(raw)
    from_path = load_image("a.png", field="images[0]", base_dir=tmp_path)
    from_url = load_image(data_url(raw), field="images[0]")
    assert from_path.sha256 == from_url.sha256


# --------------------------------------------------------------------------- references


def test_relative_path_resolves_against_base_dir(tmp_path, monkeypatch):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "img.png").write_bytes(encode(Image.new("RGB", (5, 7))))
    monkeypatch.chdir(tmp_path)  # the cwd must not matter
    payload = load_image("img.png", field="images[0]", base_dir=tmp_path / "sub")
    assert (payload.width, payload.height) == (5, 7)
    abs_path = str(tmp_path / "sub" / "img.png")
    assert load_image(abs_path, field="images[0]", base_dir=tmp_path).sha256 == payload.sha256


@pytest.mark.parametrize(
    ("ref", "fragment"),
    [
        ("missing.png", "does not exist"),
        ("", "expected an image path"),
        ("   ", "expected an image path"),
        ("data:image/png;base64,@@not base64!!", "not valid base64"),
        ("data:image/png,rawbytes", "base64-encoded"),
        ("https://example.com/a.png", "URL images are disabled"),
        ("http://example.com/a.png", "URL images are disabled"),
        ("ftp://example.com/a.png", "unsupported image URL scheme"),
        ("file:///etc/passwd", "unsupported image URL scheme"),
    ],
)
def test_bad_references_name_the_field(ref, fragment, tmp_path):
    with pytest.raises(InputError) as exc:
        read_image_bytes(ref, field="images[3]", base_dir=tmp_path)
    assert exc.value.field == "images[3]"
    assert fragment in exc.value.message
    assert str(exc.value).startswith("images[3]: ")


def test_directory_is_not_an_image(tmp_path):
    (tmp_path / "folder.png").mkdir()
    with pytest.raises(InputError) as exc:
        read_image_bytes("folder.png", field="images[0]", base_dir=tmp_path)
    assert exc.value.field == "images[0]"


def test_overlong_path_is_an_input_error(tmp_path):
    """A file name over the OS limit (ENAMETOOLONG) must not escape as OSError."""
    with pytest.raises(InputError) as exc:
        read_image_bytes("x" * 300 + ".png", field="images[0]", base_dir=tmp_path)
    assert exc.value.field == "images[0]"


def test_enabled_remote_image_that_cannot_be_fetched_is_an_input_error():
    """With URL images enabled, an unreachable URL is bad input, not a crash."""
    settings = JudgeSettings(allow_remote_images=True, remote_image_timeout_s=2.0)
    with pytest.raises(InputError) as exc:
        read_image_bytes("https://127.0.0.1:9/a.png", field="images[0]", settings=settings)
    assert exc.value.field == "images[0]"


def test_oversized_data_url_is_rejected_before_decoding():
    url = "data:image/png;base64," + "A" * 4000
    with pytest.raises(InputError, match=r"over the limit of \d+ bytes \(JUDGE_IMAGE_MAX_BYTES"):
        read_image_bytes(url, field="images[0]", settings=JudgeSettings(image_max_bytes=1024))


# --------------------------------------------------------------------------- parse_submission


def _mutated(mutate) -> dict:
    data = submission("CO", n_checks=2, n_images=1)
    mutate(data)
    return data


def _pop_checks(d):
    del d["task"]["checklist"][1]["prompt_check"], d["task"]["checklist"][1]["image_check"]


def test_valid_submission_parses():
    sub = parse_submission(submission("IM", n_checks=3, n_images=2))
    assert isinstance(sub, Submission)
    assert [c.id for c in sub.task.checklist] == ["c1", "c2", "c3"]
    assert sub.submission_id == sub.fingerprint()


def test_checkpoint_with_only_one_check_is_valid():
    def one_check(d):
        del d["task"]["checklist"][0]["prompt_check"]
        del d["task"]["checklist"][1]["image_check"]

    sub = parse_submission(_mutated(one_check))
    assert sub.task.checklist[0].prompt_check is None
    assert sub.task.checklist[1].image_check is None


@pytest.mark.parametrize(
    ("mutate", "field", "fragment"),
    [
        (lambda d: d["task"].update(category="XX"), "task.category", "'CO'"),
        (lambda d: d.pop("prompt"), "prompt", "required"),
        (lambda d: d["task"].pop("id"), "task.id", "required"),
        (
            lambda d: d["task"]["checklist"][1].update(primitive="vibes"),
            "task.checklist[1].primitive",
            "quantity",
        ),
        (lambda d: d["task"]["checklist"][1].update(id=""), "task.checklist[1].id", "at least 1"),
        (_pop_checks, "task.checklist[1]", "'c2'"),
        (lambda d: d["task"]["checklist"][1].update(id="c1"), "task.checklist", "more than once"),
        (lambda d: d.update(images=[123]), "images[0]", "string"),
        (lambda d: d.update(images=["a.png"] * 9), "images", "at most 8"),
        (lambda d: d.update(prompt="x" * 20_001), "prompt", "20000"),
        (lambda d: d["prompter"].update(kind="robot"), "prompter.kind", "'mllm'"),
        (lambda d: d["task"].update(checklist="c1"), "task.checklist", "list"),
    ],
    ids=[
        "category",
        "prompt",
        "task-id",
        "primitive",
        "empty-id",
        "no-checks",
        "duplicate-ids",
        "image-type",
        "too-many-images",
        "long-prompt",
        "prompter-kind",
        "checklist-type",
    ],
)
def test_error_field_paths(mutate, field, fragment):
    with pytest.raises(InputError) as exc:
        parse_submission(_mutated(mutate))
    assert exc.value.field == field
    assert fragment in exc.value.message
    assert str(exc.value).startswith(f"{field}: ")


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d.update(colour="red"), "colour"),
        (lambda d: d["task"].update(deadline="soon"), "task.deadline"),
        (lambda d: d["task"]["checklist"][0].update(weight=2), "task.checklist[0].weight"),
        (lambda d: d["prompter"].update(email="a@b.c"), "prompter.email"),
    ],
)
def test_unknown_fields_are_rejected(mutate, field):
    with pytest.raises(InputError) as exc:
        parse_submission(_mutated(mutate))
    assert exc.value.field == field
    assert "unknown field" in exc.value.message


@pytest.mark.parametrize(
    ("value", "name"), [([], "list"), ("x", "str"), (None, "NoneType"), (3, "int")]
)
def test_non_object_is_rejected(value, name):
    with pytest.raises(InputError) as exc:
        parse_submission(value)
    assert exc.value.field == "(submission)"
    assert "JSON object" in exc.value.message and name in exc.value.message


def test_several_problems_are_all_named():
    def two(d):
        d["task"]["category"] = "XX"
        d.pop("prompt")

    with pytest.raises(InputError) as exc:
        parse_submission(_mutated(two))
    assert "task.category: " in str(exc.value) and "prompt: this field is required" in str(
        exc.value
    )


def test_input_is_not_mutated():
    data = submission("CO", n_checks=2)
    before = copy.deepcopy(data)
    parse_submission(data)
    assert data == before


# --------------------------------------------------------------------------- load_submission_file


def test_load_submission_file_reports_json_position(tmp_path):
    path = tmp_path / "s.json"
    path.write_text('{\n  "task": {\n    "id": "t",,\n  }\n}', encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_submission_file(path)
    assert exc.value.field == str(path)
    assert "line 3" in exc.value.message and "column" in exc.value.message


def test_load_submission_file_rejects_non_utf8_and_missing(tmp_path):
    bad = tmp_path / "latin1.json"
    bad.write_bytes('{"prompt": "caf\xe9"}'.encode("latin-1"))
    with pytest.raises(InputError, match="UTF-8"):
        load_submission_file(bad)
    with pytest.raises(InputError, match="does not exist"):
        load_submission_file(tmp_path / "nope.json")
    with pytest.raises(InputError, match="is a folder: give the JSON file inside it"):
        load_submission_file(tmp_path)


def test_load_submission_file_round_trip(tmp_path):
    import json

    path = tmp_path / "s.json"
    path.write_text(json.dumps(submission("OE", n_checks=1, n_images=0)), encoding="utf-8")
    sub = load_submission_file(path)
    assert sub.task.category.value == "OE" and sub.images == []


def test_base64_payloads_are_judged_as_strict_binascii_judges_them() -> None:
    """The vector decoder's fast path accepts and decodes exactly what strict mode does."""
    import binascii
    import random

    from judge.io.images import _b64decode_strict

    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    odd = "= \n-_.\x00é"
    rng = random.Random(5)
    for _ in range(20000):
        text = "".join(
            rng.choice(alphabet[:6] + "+/=" + odd if rng.random() < 0.5 else alphabet + "=")
            for _ in range(rng.randint(0, 14))
        )
        try:
            expected: bytes | None = binascii.a2b_base64(text, strict_mode=True)
        except (binascii.Error, ValueError):
            expected = None
        try:
            got: bytes | None = _b64decode_strict(text, "images[0]")
        except InputError as exc:
            assert "not valid base64" in str(exc)
            got = None
        assert got == expected, repr(text)


@pytest.mark.parametrize("fmt", ["PNG", "JPEG"])
def test_images_sent_to_the_model_carry_no_metadata(fmt):
    """A comment, text chunks, EXIF, XMP or a resolution in the submitted file never reach
    the model: the payload has pixels only (and so does an image handed over with info)."""
    from tests.campaigns.helpers import metadata_of, png, with_metadata

    raw = with_metadata(png("#3a3", 2), fmt)
    url = f"data:image/{fmt.lower()};base64," + base64.b64encode(raw).decode()
    assert metadata_of(raw)  # the source carries it
    sent = load_image(url, field="image")
    out = base64.b64decode(sent.data_url.split(",", 1)[1])
    assert metadata_of(out) == {}
    img = Image.open(io.BytesIO(raw))
    img.load()
    direct = base64.b64decode(to_payload(img.convert("RGB"), 1024).data_url.split(",", 1)[1])
    assert metadata_of(direct) == {}
