"""The local image_check skill: quoted text decided by OCR, everything else unscored."""

from __future__ import annotations

import asyncio

import pytest
from PIL import Image, ImageDraw, ImageFont

from judge.io.images import to_payload
from skills.local import NEEDS_VLM
from skills.registry import default_registry
from skills.types import CheckSpec, SkillInput, SkillOutput
from tests.local.conftest import render_text


def run_checks(img: Image.Image | None, checks: dict[str, str]) -> SkillOutput:
    skill = default_registry().skill("image_check", "local")
    inp = SkillInput(
        task_id="t1",
        category="CO",
        brief="A poster for a shop opening.",
        prompt="a poster",
        image=to_payload(img, 1536) if img is not None else None,
        checks=tuple(CheckSpec(id=k, primitive="text", text=v) for k, v in checks.items()),
    )
    return asyncio.run(skill(inp, None))  # the local kind never touches the client


@pytest.fixture(scope="module")
def poster() -> SkillOutput:
    """One OCR pass over a rendered poster, shared by the module's tests."""
    return run_checks(
        render_text(["GRAND OPENING", "6:00 AM"]),
        {
            "title": "The banner reads 'GRAND OPENING'.",
            "time": 'The clock caption reads "6:00 AM".',
            "both": "The poster reads \u201cGRAND OPENING\u201d and \u201c6:00 AM\u201d.",
            "alt": "Caption reads 'Panel 1: 6:00 AM' or caption reads '6:00 AM'.",
            "wrong": "The banner reads 'CLOSING SALE'.",
            "one_wrong": "The poster reads 'GRAND OPENING' and 'MIDNIGHT'.",
            "plain": "The sky is blue",
        },
    )


def test_image_check_has_a_local_implementation():
    assert default_registry().skill("image_check", "local").backend == "local"


@pytest.mark.parametrize("cid", ["title", "time", "both", "alt"])
def test_rendered_text_is_found_by_ocr(poster, cid):
    v = poster.verdicts[cid]
    assert v.verdict is True, v
    assert v.reason is None
    assert v.rationale.startswith("OCR read")
    assert "GRAND OPENING" in v.rationale


@pytest.mark.parametrize("cid", ["wrong", "one_wrong"])
def test_text_not_in_the_image_is_false(poster, cid):
    v = poster.verdicts[cid]
    assert v.verdict is False, v
    assert "OCR read" in v.rationale


def test_check_without_a_quote_is_unscored_with_the_reason(poster):
    v = poster.verdicts["plain"]
    assert v.verdict is None
    assert v.rationale is None
    assert "needs a vision-language model" in v.reason
    assert v.reason == NEEDS_VLM


def test_blank_image_has_no_text():
    out = run_checks(Image.new("RGB", (640, 360), "white"), {"t": "The sign reads 'OPEN'."})
    v = out.verdicts["t"]
    assert v.verdict is False
    assert "OCR found no text" in v.rationale


def test_missing_image_is_unscored():
    out = run_checks(None, {"t": "The sign reads 'OPEN'."})
    assert out.verdicts["t"].verdict is None
    assert out.verdicts["t"].reason == "no image submitted"


def test_prompt_check_local_decides_from_the_prompt():
    skill = default_registry().skill("prompt_check", "local")
    inp = SkillInput(
        task_id="t1",
        category="CO",
        brief="",
        prompt="A poster with the words GRAND OPENING above a red door",
        checks=(
            CheckSpec(id="q", primitive="text", text="The prompt quotes 'GRAND OPENING'."),
            CheckSpec(id="s", primitive="spatial_relation", text="The door is below the words."),
        ),
    )
    out = asyncio.run(skill(inp, None))
    assert out.verdicts["q"].verdict is True
    assert out.verdicts["s"].verdict is None
    assert NEEDS_VLM in out.verdicts["s"].reason


@pytest.mark.slow
def test_words_on_one_slightly_tilted_line_are_read_left_to_right():
    # two words of one banner, detected as separate boxes; the right one sits 6 px higher
    # (a slight tilt, common in generated images). Reading order must still be left to right.
    img = Image.new("RGB", (1400, 300), "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=72)
    draw.text((40, 100), "GRAND", fill="black", font=font)
    draw.text((800, 94), "OPENING", fill="black", font=font)
    out = run_checks(img, {"t": "The banner reads 'GRAND OPENING'."})
    assert out.verdicts["t"].verdict is True, out.verdicts["t"].rationale
