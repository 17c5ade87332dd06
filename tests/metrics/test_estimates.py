"""Local (heuristic) estimates: consistency from the metrics, quality from features."""

from __future__ import annotations

import pytest
from PIL import Image, ImageFilter

from skills.metrics import compute_all
from skills.metrics.estimates import (
    image_consistency_estimate,
    instruction_following_estimate,
    visual_quality_estimate,
)
from skills.metrics.types import MetricValue
from tests.metrics.conftest import jpeg, overlay_text, photo, swap_face, yellow_tint


@pytest.mark.slow
def test_consistency_follows_the_shift_metrics(astronaut: Image.Image) -> None:
    instruction = "Add a small badge to the suit."
    metrics = ["color_shift", "structure_distance", "face_identity"]
    scores = {
        name: image_consistency_estimate(compute_all(astronaut, edit, instruction, metrics=metrics))
        for name, edit in {
            "jpeg": jpeg(astronaut),
            "tint": yellow_tint(astronaut),
            "face": swap_face(astronaut),
            "other": photo("coffee"),
        }.items()
    }
    assert scores["jpeg"]["score"] >= 4.5
    assert scores["tint"]["score"] < 3.5 and scores["face"]["score"] < 3.5
    assert scores["other"]["score"] == 1.0
    assert all(s["local_estimate"] is True for s in scores.values())
    assert scores["face"]["penalties"]["face_identity"] > 0.5


def test_consistency_without_applicable_metrics() -> None:
    out = image_consistency_estimate({"color_shift": MetricValue.not_applicable("recolour")})
    assert out["score"] is None and "no applicable" in out["reason"]


def test_visual_quality_drops_for_damaged_edits(astronaut: Image.Image) -> None:
    good = visual_quality_estimate(jpeg(astronaut, 90), astronaut)
    blurred = visual_quality_estimate(astronaut.filter(ImageFilter.GaussianBlur(3)), astronaut)
    blocky = visual_quality_estimate(jpeg(astronaut, 5), astronaut)
    assert good["score"] >= 4.5 and good["relative_to_source"] is True
    assert blurred["score"] < 2.5 and blurred["penalties"]["sharpness_loss"] > 0.5
    assert blocky["score"] < 2.5
    alone = visual_quality_estimate(jpeg(astronaut, 5))
    assert alone["relative_to_source"] is False and alone["score"] < 2.5
    assert visual_quality_estimate(astronaut)["score"] >= 4.5


def test_instruction_following_only_for_text_edits(astronaut: Image.Image) -> None:
    instruction = 'Add a sign that says "OPEN LATE".'
    out = compute_all(
        astronaut, overlay_text(astronaut, "OPEN LATE"), instruction, metrics=["text_rendering"]
    )
    assert instruction_following_estimate(out)["score"] >= 4.6
    plain = compute_all(astronaut, astronaut, "Add a hat.", metrics=["text_rendering"])
    assert instruction_following_estimate(plain)["score"] is None
