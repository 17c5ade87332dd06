"""structure_distance: near zero for re-encodes and few-pixel crops, large for other scenes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from skills.metrics import compute_all
from skills.metrics.structure_distance import gram_distance
from tests.metrics.conftest import AVT_DEV, crop, hue_rotate, jpeg, paste_patch, photo, yellow_tint


def dist(source: Image.Image, edited: Image.Image, **kw) -> float:
    out = compute_all(source, edited, "Add a hat.", metrics=["structure_distance"], **kw)
    return out["structure_distance"]


def test_gram_distance_is_invariant_to_feature_scale() -> None:
    f = np.random.default_rng(1).normal(size=(20, 8))
    assert gram_distance(f, 3 * f) == pytest.approx(0.0, abs=1e-6)
    assert gram_distance(f, f[::-1]) > 0.1  # same features, different layout


def test_direction_on_photos(astronaut: Image.Image) -> None:
    near = {
        "jpeg": dist(astronaut, jpeg(astronaut)).value,
        "crop": dist(astronaut, crop(astronaut, 3)).value,
    }
    appearance = {
        "tint": dist(astronaut, yellow_tint(astronaut)).value,
        "hue": dist(astronaut, hue_rotate(astronaut)).value,
    }
    patch = dist(astronaut, paste_patch(astronaut)).value
    others = [dist(astronaut, photo(n)).value for n in ("coffee", "chelsea", "rocket")]
    assert dist(astronaut, astronaut).value == 0.0
    assert max(near.values()) < 0.05, near
    assert max(appearance.values()) < 0.07, appearance  # colour changes keep the structure
    assert max(near.values()) < patch < min(others)
    assert min(others) > 0.15 and min(others) > 4 * max(near.values())


def test_avt_dev_scenes(astronaut: Image.Image) -> None:
    """On the AVT dev photos too: a re-encode is close, another prompt's photo is far."""
    own = sorted((AVT_DEV / "images" / "own").glob("*.png"))
    assert len(own) >= 2, f"AVT dev images missing under {AVT_DEV}"
    a, b = (Image.open(p).convert("RGB") for p in own[:2])
    value = dist(a, jpeg(a))
    assert value.details["encoder"].startswith("efficientnet-lite0")
    assert value.value < 0.05
    assert dist(a, b).value > 0.15


@pytest.mark.parametrize(
    "instruction",
    [
        "Show the scene from a bird's eye view.",
        "Zoom in on the astronaut.",
        "Move the helmet to the left side.",
        "Change the camera angle to a low angle shot.",
        "Replace the background with a beach.",
        "Flip the image horizontally.",
    ],
)
def test_not_applicable_for_layout_changes(astronaut: Image.Image, instruction: str) -> None:
    out = compute_all(astronaut, photo("coffee"), instruction, metrics=["structure_distance"])
    value = out["structure_distance"]
    assert not value.applicable
    assert "layout" in value.reason or "scene" in value.reason


def test_dinov2_from_a_local_folder(tiny_dinov2: Path, astronaut: Image.Image) -> None:
    """A local DINOv2 folder is used (last-layer keys); identical images give 0."""
    same = dist(astronaut, astronaut, dinov2=str(tiny_dinov2))
    other = dist(astronaut, photo("coffee"), dinov2=str(tiny_dinov2))
    assert same.details["encoder"] == "dinov2:tiny-dinov2@last-keys"
    assert same.details["patches"] == 16 * 16
    assert same.value == 0.0 and other.value > 0.0


def test_missing_dinov2_folder_is_reported(tmp_path: Path, astronaut: Image.Image) -> None:
    value = dist(astronaut, astronaut, dinov2=str(tmp_path / "nope"))
    assert value.applicable and value.value is None
    assert value.reason.startswith("failed:")
