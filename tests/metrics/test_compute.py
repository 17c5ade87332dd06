"""compute_all: input handling, the model-decided applicability hook, failures, registry."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pytest
from PIL import Image

from skills.metrics import Metric, compute_all, metric_names, register
from skills.metrics import registry as metric_registry
from skills.metrics.inputs import MAX_SIDE, prepare_pair
from skills.metrics.types import MetricValue
from tests.metrics.conftest import crop, jpeg, photo, yellow_tint

FAST = ["color_shift", "structure_distance"]


def test_all_metrics_json_shape(astronaut: Image.Image) -> None:
    out = compute_all(astronaut, jpeg(astronaut), "Add a small flag patch to the sleeve.")
    assert list(out) == metric_names()
    for name, value in out.items():
        d = value.as_dict()
        assert set(d) == {"value", "applicable", "reason", "details"}, name
        assert (d["value"] is None) == (d["reason"] is not None), name
    assert out["text_rendering"].applicable is False
    assert out["face_identity"].value > 0.96


def test_different_sizes_are_resized_and_noted(astronaut: Image.Image) -> None:
    out = compute_all(astronaut, crop(astronaut, 4), "Add a hat.", metrics=FAST)
    notes = out["color_shift"].details["input_notes"]
    assert any("resized from 504x504 to 512x512" in n for n in notes)
    stretched = compute_all(astronaut, astronaut.resize((600, 300)), "Add a hat.", metrics=FAST)
    assert "stretched" in " ".join(stretched["structure_distance"].details["input_notes"])


def test_grayscale_rgba_and_palette_inputs(astronaut: Image.Image) -> None:
    rgba = astronaut.convert("RGBA")
    rgba.putalpha(200)
    out = compute_all(astronaut.convert("L"), rgba, "Add a hat.", metrics=FAST)
    notes = " ".join(out["color_shift"].details["input_notes"])
    assert "grayscale" in notes and "composited over white" in notes
    assert all(v.value is not None for v in out.values())
    pal = compute_all(astronaut, astronaut.convert("P"), "Add a hat.", metrics=["color_shift"])
    assert pal["color_shift"].value < 3


def test_very_large_images_are_downscaled_first() -> None:
    big = photo("coffee").resize((3000, 2000))
    pair = prepare_pair(big, yellow_tint(big))
    assert max(pair.size) == MAX_SIDE and pair.size == pair.edited.size
    assert any("downscaled from 3000x2000" in n for n in pair.notes)
    out = compute_all(big, yellow_tint(big), "Add a hat.", metrics=FAST)
    assert out["color_shift"].value > 8 and out["structure_distance"].value < 0.07


def test_bad_inputs_raise_clear_errors(astronaut: Image.Image) -> None:
    with pytest.raises(TypeError, match=r"source image must be a PIL\.Image\.Image"):
        compute_all(np.zeros((8, 8, 3)), astronaut, "x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="edited image is empty"):
        compute_all(astronaut, Image.new("RGB", (0, 0)), "x")
    with pytest.raises(TypeError, match="instruction must be a string"):
        compute_all(astronaut, astronaut, None)  # type: ignore[arg-type]
    with pytest.raises(KeyError, match="unknown metric 'sharpness'"):
        compute_all(astronaut, astronaut, "x", metrics=["sharpness"])


def test_model_decided_applicability_overrides_rules(astronaut: Image.Image) -> None:
    tinted = yellow_tint(astronaut)
    out = compute_all(
        astronaut,
        tinted,
        "Make the car blue.",  # the rules say colour change
        metrics=FAST,
        applicability={"color_shift": True, "structure_distance": (False, "viewpoint change")},
    )
    assert out["color_shift"].applicable and out["color_shift"].value > 8
    assert out["color_shift"].details["applicability_by"] == "model"
    assert out["structure_distance"].reason == "viewpoint change"
    assert out["structure_distance"].details["applicability_by"] == "model"
    rules_only = compute_all(astronaut, tinted, "Make the car blue.", metrics=["color_shift"])
    assert rules_only["color_shift"].details["applicability_by"] == "rules"


class Broken(Metric):
    name: ClassVar[str] = "broken_for_test"
    direction: ClassVar[str] = "n/a"

    def compute(self, pair: Any, options: Any, facts: dict[str, Any]) -> MetricValue:
        raise RuntimeError("boom")


def test_new_metric_is_one_registered_class_and_failures_are_contained(
    astronaut: Image.Image,
) -> None:
    register(Broken)
    try:
        assert "broken_for_test" in metric_names()
        with pytest.raises(ValueError, match="registered twice"):
            register(Broken)
        out = compute_all(astronaut, astronaut, "x", metrics=["broken_for_test", "color_shift"])
        assert out["broken_for_test"].value is None
        assert out["broken_for_test"].reason == "failed: RuntimeError: boom"
        assert out["color_shift"].value == 0.0  # the others still run
    finally:
        metric_registry.METRICS.remove("broken_for_test")


def test_concurrent_calls_agree_and_source_work_is_cached(astronaut: Image.Image) -> None:
    import threading

    from skills.metrics import cache
    from tests.metrics.conftest import swap_face

    cache.clear()
    edits = [swap_face(astronaut), jpeg(astronaut), yellow_tint(astronaut)]
    names = ["face_identity", "structure_distance"]
    results: dict[int, dict[str, float | None]] = {}

    def run(i: int) -> None:
        out = compute_all(astronaut, edits[i], "Add a hat.", metrics=names)
        results[i] = {n: out[n].value for n in names}

    threads = [threading.Thread(target=run, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    key = cache.image_key(prepare_pair(astronaut, astronaut).source)
    assert cache.get("faces", key) is not None  # the source's faces are remembered
    for i, edit in enumerate(edits):  # the same values as one call at a time, cache cold
        cache.clear()
        out = compute_all(astronaut, edit, "Add a hat.", metrics=names)
        assert results[i] == {n: out[n].value for n in names}
    assert results[0]["face_identity"] < 0.93 < results[1]["face_identity"]


def test_max_side_bounds_the_working_size(astronaut: Image.Image) -> None:
    out = compute_all(
        astronaut, jpeg(astronaut), "Add a hat.", metrics=["color_shift"], max_side=256
    )
    assert (
        "source image downscaled from 512x512 to 256x256"
        in out["color_shift"].details["input_notes"]
    )
