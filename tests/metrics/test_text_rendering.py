"""text_rendering: OCR character accuracy of the quoted text, only for text edits."""

from __future__ import annotations

import pytest
from PIL import Image

from skills.metrics import compute_all
from skills.metrics.applicability import requested_text
from skills.metrics.text_rendering import (
    best_substring_distance,
    changed_box,
    character_accuracy,
    normalise,
)
from tests.metrics.conftest import overlay_text, photo, yellow_tint

INSTRUCTION = 'Add a sign that says "OPEN LATE".'


def text_value(source: Image.Image, edited: Image.Image, instruction: str = INSTRUCTION):
    out = compute_all(source, edited, instruction, metrics=["text_rendering"])
    return out["text_rendering"]


def test_character_accuracy_rules() -> None:
    assert normalise("  Open\u00a0“Late”  ") == 'open"late"'
    assert best_substring_distance("late", "xxlatexx") == 0
    assert best_substring_distance("late", "xxlaTxx".lower()) == 1
    assert character_accuracy("OPEN LATE", ["open", "late"]) == 1.0  # case and spaces ignored
    assert character_accuracy("OPEN LATE", ["OPEN LATR"]) == pytest.approx(7 / 8)
    assert character_accuracy("OPEN LATE", ["OPEN"]) == pytest.approx(0.5)
    assert character_accuracy("OPEN LATE", []) == 0.0
    assert character_accuracy(["AB", "CDEF"], ["AB CDXF"]) == pytest.approx(5 / 6, abs=1e-4)


def test_requested_text_extraction() -> None:
    assert requested_text(INSTRUCTION) == ["OPEN LATE"]
    assert requested_text("Write 'Happy Birthday' on the cake.") == ["Happy Birthday"]
    assert requested_text('Change the sign from "OPEN" to "CLOSED".') == ["CLOSED"]
    assert requested_text("Replace 'dog' with 'cat'.") == []  # quotes, but no text cue
    assert requested_text("Add a sign to the door.") == []


def test_rendered_text_scores_high_misspelt_lower(astronaut: Image.Image) -> None:
    right = text_value(astronaut, overlay_text(astronaut, "OPEN LATE"))
    wrong = text_value(astronaut, overlay_text(astronaut, "OPEM LAIE"))
    missing = text_value(astronaut, yellow_tint(astronaut))
    assert right.applicable and right.value >= 0.9, right.details
    assert right.details["ocr_region"] == "changed region"
    assert 0.4 <= wrong.value < right.value
    assert missing.value < 0.5


def test_changed_box_finds_the_sign(astronaut: Image.Image) -> None:
    edited = overlay_text(astronaut, "OPEN LATE")
    box = changed_box(astronaut, edited)
    assert box is not None
    x0, y0, x1, y1 = box
    assert x0 <= 20 and y0 <= 420 and x1 >= 200 and y1 >= 470
    assert (x1 - x0) * (y1 - y0) < 0.5 * 512 * 512
    assert changed_box(astronaut, astronaut) is None
    assert changed_box(astronaut, photo("coffee").resize(astronaut.size)) is None


@pytest.mark.parametrize(
    ("instruction", "reason"),
    [
        ("Add a red hat.", "no quoted text"),
        ("Remove the text 'SALE' from the window.", "remove text"),
        ("Erase the watermark.", "remove text"),
    ],
)
def test_not_applicable(astronaut: Image.Image, instruction: str, reason: str) -> None:
    value = text_value(astronaut, astronaut, instruction)
    assert not value.applicable and reason in value.reason


def test_requested_text_given_by_a_caller(astronaut: Image.Image) -> None:
    """An unquoted instruction: the caller (e.g. a model) says which text to expect."""
    edited = overlay_text(astronaut, "OPEN LATE")
    instruction = "Put up a sign telling people the shop is open late."
    assert not text_value(astronaut, edited, instruction).applicable
    out = compute_all(
        astronaut, edited, instruction, metrics=["text_rendering"], requested_text=["OPEN LATE"]
    )["text_rendering"]
    assert out.applicable and out.value >= 0.9
    vetoed = compute_all(
        astronaut,
        edited,
        instruction,
        metrics=["text_rendering"],
        requested_text=["OPEN LATE"],
        applicability={"text_rendering": (False, "the model says no text is asked for")},
    )["text_rendering"]
    assert not vetoed.applicable and vetoed.reason == "the model says no text is asked for"
