"""color_shift: near zero for re-encodes, clearly larger for a tint or hue rotation."""

from __future__ import annotations

import pytest
from PIL import Image

from skills.metrics import compute_all
from skills.metrics.color_shift import lab_distance, srgb_to_lab
from tests.metrics.conftest import (
    crop,
    hue_rotate,
    jpeg,
    paste_patch,
    photo,
    yellow_tint,
)

INSTRUCTION = "Remove the helmet on the right."


def shift(source: Image.Image, edited: Image.Image, instruction: str = INSTRUCTION):
    return compute_all(source, edited, instruction, metrics=["color_shift"])["color_shift"]


def test_lab_conversion_reference_points() -> None:
    import numpy as np

    lab = srgb_to_lab(np.array([[1.0, 1.0, 1.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]))
    np.testing.assert_allclose(lab[0], [100, 0, 0], atol=0.01)
    np.testing.assert_allclose(lab[1], [0, 0, 0], atol=0.01)
    np.testing.assert_allclose(lab[2], [53.24, 80.09, 67.20], atol=0.05)  # sRGB red


def test_uniform_shift_reads_in_delta_e() -> None:
    """A flat colour moved by a known ΔE gives about that ΔE (the documented scale)."""
    import numpy as np

    a = Image.new("RGB", (64, 64), (120, 120, 120))
    b = Image.new("RGB", (64, 64), (150, 120, 120))
    expected = float(
        np.linalg.norm(
            srgb_to_lab(np.array([150, 120, 120]) / 255)
            - srgb_to_lab(np.array([120, 120, 120]) / 255)
        )
    )
    assert lab_distance(a, b) == pytest.approx(expected, rel=0.15)


@pytest.mark.parametrize("name", ["astronaut", "coffee", "chelsea"])
def test_direction_on_photos(name: str) -> None:
    src = photo(name)
    assert shift(src, src).value == 0.0
    reencoded = shift(src, jpeg(src)).value
    cropped = shift(src, crop(src)).value
    tinted = shift(src, yellow_tint(src))
    rotated = shift(src, hue_rotate(src)).value
    assert reencoded < 1.0 and cropped < 1.5
    assert tinted.value > 8.0 and rotated > 8.0
    assert tinted.value > 8 * max(reencoded, cropped)
    assert tinted.details["mean_delta"]["b"] > 5  # the tint is yellow: b* went up
    assert tinted.details["chroma_only"] > 5


def test_local_patch_is_small_but_visible(astronaut: Image.Image) -> None:
    patched = shift(astronaut, paste_patch(astronaut)).value
    assert (
        shift(astronaut, jpeg(astronaut)).value
        < patched
        < shift(astronaut, yellow_tint(astronaut)).value
    )


def test_grayscale_source_against_coloured_edit(astronaut: Image.Image) -> None:
    gray = astronaut.convert("L")
    value = shift(gray, astronaut)
    assert value.applicable and value.value > 5  # the edit added colour
    assert any("grayscale" in note for note in value.details["input_notes"])
    assert shift(gray, gray.convert("RGB")).value < 0.5


@pytest.mark.parametrize(
    "instruction",
    [
        "Make the car blue.",
        "Colorize this old photo.",
        "Recolour the wall.",
        "Change the colour of her jacket to green.",
        "Turn it into a black and white photo.",
        "Give the picture a warm vintage filter.",
        "Make it night time.",
        "Repaint this in the style of Van Gogh.",
    ],
)
def test_not_applicable_for_colour_changes(astronaut: Image.Image, instruction: str) -> None:
    value = shift(astronaut, hue_rotate(astronaut), instruction)
    assert not value.applicable and value.value is None and value.reason
