"""The built-in renderer: deterministic, labelled, varied per image, no network."""

from __future__ import annotations

import io

from PIL import Image

from eval.t2i import LABEL, BackendSpec, ImageGenerator, render_card


def test_same_inputs_give_the_same_bytes() -> None:
    a = render_card("three blue spheres", 4, 2, (256, 256))
    assert a == render_card("three blue spheres", 4, 2, (256, 256))
    assert a.startswith(b"\x89PNG")


def test_index_seed_and_prompt_each_change_the_image() -> None:
    base = render_card("three blue spheres", 4, 0, (128, 128))
    others = [
        render_card("three blue spheres", 4, 1, (128, 128)),
        render_card("three blue spheres", 5, 0, (128, 128)),
        render_card("three red spheres", 4, 0, (128, 128)),
    ]
    assert len({base, *others}) == 4


def test_the_card_carries_the_not_a_model_band() -> None:
    assert LABEL == "NOT A MODEL — built-in renderer"
    img = Image.open(io.BytesIO(render_card("a cat", 0, 0, (256, 256)))).convert("RGB")
    band = img.crop((0, 256 - 24, 256, 256))
    colours = {c for _, c in band.getcolors(maxcolors=4096)}
    assert (0, 0, 0) in colours and (255, 255, 0) in colours  # yellow label on black


async def test_generator_renders_n_images_at_the_spec_size_without_calls() -> None:
    spec = BackendSpec(id="demo", model="builtin/renderer", size="96x64", seed=3)
    g = await ImageGenerator().generate(spec, "a lighthouse at dusk", 4)
    assert g.status == "ok" and len(set(g.images)) == 4
    assert {Image.open(io.BytesIO(b)).size for b in g.images} == {(96, 64)}
    assert g.usage == {"calls": 0, "cost_usd": 0.0, "latency_s": g.usage["latency_s"]}
    same = await ImageGenerator().generate(spec, "a lighthouse at dusk", 4, seed=3)
    assert same.images == g.images  # spec.seed is the default seed
    other = await ImageGenerator().generate(spec, "a lighthouse at dusk", 4, seed=9)
    assert other.images != g.images


async def test_default_size_is_256_square() -> None:
    g = await ImageGenerator().generate(BackendSpec(id="d", model="builtin/renderer"), "x", 1)
    assert Image.open(io.BytesIO(g.images[0])).size == (256, 256)
