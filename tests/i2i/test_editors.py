"""ImageEditor: the demo editors offline, and litellm's ``aimage_edit`` against the fake
provider's ``/v1/images/edits`` on loopback (known transformation, faults, latency)."""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image, ImageOps

from eval.i2i import EditorSpec, ImageEditor, load_editors
from eval.t2i import BackendConfigError
from judge.config import JudgeSettings
from tests.fakes.provider import FakeProvider

FAST = JudgeSettings(backoff_base_s=0.001, backoff_max_s=0.01)


def png(colour: str | tuple = "white", size: tuple[int, int] = (64, 48), mode: str = "RGB"
        ) -> bytes:  # fmt: skip
    buf = io.BytesIO()
    img = Image.new(mode, size, colour)
    if mode == "RGB":
        img.paste((200, 30, 30), (16, 12, 48, 36))
    img.save(buf, "PNG")
    return buf.getvalue()


def pixels(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGB")


@pytest.fixture
def editor() -> ImageEditor:
    return ImageEditor(FAST)


@pytest.fixture
def spec(provider: FakeProvider) -> Callable[..., EditorSpec]:
    def make(**over: object) -> EditorSpec:
        fields: dict[str, object] = {
            "id": "fake", "model": "openai/fake-editor", "api_base": provider.base_url,
            "timeout_s": 60.0, "max_retries": 2,
        }  # fmt: skip
        fields.update(over)
        return EditorSpec.model_validate(fields)

    return make


def edit_calls(provider: FakeProvider) -> list[dict]:
    return [c.body for c in provider.wire_calls if c.path.endswith("/images/edits")]


async def test_demo_editor_is_deterministic_labelled_and_follows_keywords(editor) -> None:
    src = png()
    demo = EditorSpec(id="demo", model="builtin/editor")
    a = await editor.edit(demo, src, "Make the square blue.", 2, seed=3)
    b = await editor.edit(demo, src, "Make the square blue.", 2, seed=3)
    assert a.status == "ok" and a.images == b.images and len(set(a.images)) == 2
    out, before = pixels(a.images[0]), pixels(src)
    assert out.size == before.size
    r, _g, bl = out.getpixel((32, 24))
    assert bl > r  # the centre was tinted towards blue
    assert out.getpixel((32, 47)) == (0, 0, 0)  # the label band along the bottom edge
    same = await editor.edit(EditorSpec(id="n", model="builtin/no-edit"), src, "Make it blue.", 1)
    assert pixels(same.images[0]).tobytes() == before.tobytes()  # no-edit: the source as it is


async def test_demo_editor_edits_only_inside_the_mask(editor) -> None:
    src = png("white", (64, 64))
    mask = Image.new("RGBA", (64, 64), (0, 0, 0, 255))
    mask.paste((0, 0, 0, 0), (0, 0, 20, 20))  # transparent = the area to edit
    buf = io.BytesIO()
    mask.save(buf, "PNG")
    g = await editor.edit(EditorSpec(id="d", model="builtin/editor"), src, "Make it green.", 1,
                          mask=buf.getvalue())  # fmt: skip
    out = pixels(g.images[0])
    assert out.getpixel((5, 5))[1] > out.getpixel((5, 5))[0]  # green inside the mask
    assert out.getpixel((32, 32)) == (200, 30, 30)  # the red square outside it is untouched


async def test_bad_inputs_fail_with_the_reason(editor) -> None:
    demo = EditorSpec(id="d", model="builtin/editor")
    g = await editor.edit(demo, b"not an image", "Make it red.", 1)
    assert g.status == "failed" and "source_image" in g.reason
    assert (await editor.edit(demo, png(), "  ", 1)).reason.startswith("the instruction is empty")
    assert "n must be" in (await editor.edit(demo, png(), "x y", 0)).reason


def test_editor_entries_are_checked_like_backends(tmp_path: Path) -> None:
    p = tmp_path / "e.toml"
    p.write_text(
        '[[editors]]\nid = "a"\nmodel = "builtin/editor"\nsize = "64x64"\n'
        '[[editors]]\nid = "b"\nmodel = "openai/gpt-image-1"\napi_key_env = "K"\n'
    )
    assert sorted(load_editors(p)) == ["a", "b"]
    p.write_text('[[editors]]\nid = "a"\nmodel = "builtin/painter"\n')
    with pytest.raises(
        BackendConfigError,
        match=r"editors\[0\] \(id 'a'\): model: unknown "
        r"built-in editor 'builtin/painter'; did you mean 'builtin/editor'\? "
        r"available: builtin/editor, builtin/no-edit",
    ):
        load_editors(p)
    p.write_text('[[editors]]\nid = "a"\nmodel = "builtin/editor"\nsizee = "1x1"\n')
    with pytest.raises(BackendConfigError, match="sizee: unknown key"):
        load_editors(p)
    p.write_text('[[backends]]\nid = "a"\nmodel = "builtin/renderer"\n')
    with pytest.raises(BackendConfigError, match=r"no \[\[editors\]\] entries"):
        load_editors(p)


async def test_litellm_edit_returns_the_fake_transformation(editor, spec, provider) -> None:
    src = png()
    g = await editor.edit(spec(), src, "Invert the colours.", 3, seed=5)
    assert g.status == "ok" and len(g.images) == 3 and g.usage["calls"] == 1
    want = ImageOps.invert(pixels(src))
    assert pixels(g.images[0]).tobytes() == want.tobytes()
    assert pixels(g.images[2]).getpixel((0, 0)) == tuple(v + 2 for v in want.getpixel((0, 0)))
    (body,) = edit_calls(provider)
    assert body["prompt"] == "Invert the colours." and body["n"] == "3" and body["seed"] == "5"
    assert body["image"][0]["bytes"] == len(src) and body["mask"] is None


async def test_mask_size_and_split_calls(editor, spec, provider) -> None:
    src = png("white", (32, 32))
    mask = Image.new("L", (32, 32), 255)
    mask.paste(0, (0, 0, 16, 32))  # black (0) = edit, for a mask without alpha
    buf = io.BytesIO()
    mask.save(buf, "PNG")
    g = await editor.edit(spec(max_n=2, size="16x16"), src, "Invert the left half.", 3,
                          mask=buf.getvalue(), seed=1)  # fmt: skip
    assert g.status == "ok" and g.usage["calls"] == 2 and len(g.images) == 3
    assert pixels(g.images[0]).size == (16, 16)
    bodies = edit_calls(provider)
    assert sorted(b["n"] for b in bodies) == ["1", "2"] and all(b["mask"] for b in bodies)
    assert sorted(b["seed"] for b in bodies) == ["1", "3"]
    out = pixels(g.images[0]).resize((32, 32))
    assert out.getpixel((4, 5)) == (0, 0, 0) and out.getpixel((28, 5)) == (255, 255, 255)


async def test_transient_faults_are_retried_and_counted(editor, spec, provider) -> None:
    provider.fail_next(["429", "503"])
    g = await editor.edit(spec(), png(), "Invert it.", 1)
    assert g.status == "ok" and g.usage["calls"] == 3
    provider.fail_next(["429", "429", "429"])
    g = await editor.edit(spec(), png(), "Invert it.", 1)
    assert g.status == "failed" and "gave up after 3 attempts" in g.reason


@pytest.mark.parametrize(
    ("fault", "status", "words"),
    [("refusal", "refused", "content policy"), ("blocked", "blocked", "content policy"),
     ("empty", "empty", "no images"), ("corrupt", "failed", "no usable image"),
     ("401", "failed", "api_key_env")],
)  # fmt: skip
async def test_faults_map_to_statuses(editor, spec, provider, fault, status, words) -> None:
    provider.fail_next([fault])
    g = await editor.edit(spec(), png(), "Invert it.", 1)
    assert g.status == status and words in g.reason and g.images == []


async def test_a_slow_endpoint_runs_under_the_editor_cap(editor, spec, provider) -> None:
    provider.latency = 0.2
    s = spec(concurrency=2)
    start = time.perf_counter()
    gens = await asyncio.gather(*(editor.edit(s, png(), "Invert it.", 1) for _ in range(4)))
    assert all(g.status == "ok" for g in gens)
    assert provider.max_in_flight == 2 and time.perf_counter() - start >= 0.4
    provider.latency = 0.0
    provider.fail_next(["timeout"])
    g = await editor.edit(spec(timeout_s=0.3, max_retries=0), png(), "Invert it.", 1)
    assert g.status == "failed" and "gave up after 1 attempts" in g.reason


async def test_missing_key_and_unknown_route_say_what_to_fix(editor, spec, provider) -> None:
    g = await editor.edit(spec(api_key_env="NO_SUCH_EDIT_KEY_VAR"), png(), "Invert it.", 1)
    assert g.status == "failed" and "NO_SUCH_EDIT_KEY_VAR" in g.reason and provider.calls == 0
    g = await editor.edit(spec(api_base=provider.base_url + "/nowhere"), png(), "Invert it.", 1)
    assert g.status == "failed" and "POST /v1/images/edits" in g.reason
