"""The rank members (BRISQUE, NIQE alone), the camera statistics and the member switch."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from memory.store import MemoryStore
from skills.local import predictor as predictor_mod
from skills.local.camera import CAMERA_NAMES, camera_features
from skills.local.predictor import MemoryModel
from skills.local.rank_member import rank_position, rank_predict
from skills.local.selection import LABELS
from skills.local.settings import ALL_MEMBERS, DEFAULT_MEMBERS
from tests.local.test_local_subjective import records

pytestmark = pytest.mark.usefixtures("predictor_defaults")


def test_rank_member_learns_the_direction_and_stays_in_the_training_range():
    x = np.array([40.0, 10.0, 30.0, 20.0])  # lower is better, like BRISQUE
    y = np.array([1.0, 5.0, 2.0, 4.0])
    assert list(rank_position(x, np.array([10.0, 25.0, 99.0]))) == [0.125, 0.5, 1.0]
    pred = rank_predict(x, y, np.ones(4), np.array([5.0, 15.0, 35.0, 1e9]))
    assert list(pred) == sorted(pred, reverse=True)  # direction learnt from the rows
    assert pred[-1] > 0 and pred[0] < 6.5  # a wild value is only the top or bottom rank
    flat = rank_predict(np.ones(4), y, np.ones(4), np.array([3.0]))
    assert flat[0] == pytest.approx(y.mean())


def _photo_like(seed: int, jpeg: bool) -> Image.Image:
    rng = np.random.default_rng(seed)
    ramp = np.linspace(40, 210, 256)[None, :, None] * np.ones((256, 1, 3))
    img = Image.fromarray(np.clip(ramp + rng.normal(0, 6, ramp.shape), 0, 255).astype("uint8"))
    if not jpeg:
        return img
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=30)
    return Image.open(io.BytesIO(buf.getvalue())).convert("RGB")


def test_camera_features_see_the_jpeg_grid_and_shared_channel_noise():
    names = list(CAMERA_NAMES)
    plain, jpeg = camera_features(_photo_like(0, False)), camera_features(_photo_like(0, True))
    assert plain.shape == jpeg.shape == (len(CAMERA_NAMES),) and np.isfinite(plain).all()
    grid = names.index("cam_grid_h")
    assert jpeg[grid] > plain[grid] + 0.1 and abs(plain[grid]) < 0.1
    grey = np.random.default_rng(1).normal(128, 8, (128, 128, 1)).repeat(3, axis=2)
    shared = camera_features(Image.fromarray(np.clip(grey, 0, 255).astype("uint8")))
    assert shared[names.index("cam_corr_rg")] > 0.9 > plain[names.index("cam_corr_rg")]
    tiny = camera_features(Image.new("RGB", (5, 3), "white"))
    assert np.isfinite(tiny).all()


@pytest.fixture
def memory(tmp_path: Path):
    recs = records(tmp_path / "src")
    return MemoryStore(tmp_path / "store").build("fam", recs, base_dir=tmp_path / "src")


def test_every_member_predicts_and_has_a_label(memory, monkeypatch):
    one_scale = ("prompt", "sibling")  # no text encoder given; the memory has one dimension
    assert MemoryModel(memory).members == [m for m in DEFAULT_MEMBERS if m not in one_scale]
    monkeypatch.setenv("JUDGE_LOCAL_MEMBERS", ",".join(ALL_MEMBERS))
    model = MemoryModel(memory)
    assert set(model.members) == set(ALL_MEMBERS) - set(one_scale)
    assert set(ALL_MEMBERS) <= set(LABELS)
    y = model._y("appeal")
    train = model.groups != "p0"
    held = np.where(~train)[0]
    for space in model.members:
        pred = model._member(space, model._row_query(space, held), y, train, "appeal")
        assert pred.shape == (len(held),) and np.isfinite(pred).all(), space


def test_member_switch_restricts_members_and_keys_the_cache(memory, monkeypatch):
    default, default_key = MemoryModel(memory), predictor_mod.config_key()
    monkeypatch.setenv("JUDGE_LOCAL_MEMBERS", "quality, brisque")
    assert MemoryModel(memory).members == ["quality", "brisque"]
    assert predictor_mod.config_key() != default_key and default_key.endswith("-stack")
    assert set(MemoryModel(memory).choices()["appeal"].spaces) <= {"quality", "brisque"}
    monkeypatch.setenv("JUDGE_LOCAL_MEMBERS", "prototype,sibling,quality,prompt,memory")
    assert predictor_mod.config_key() == default_key  # the defaults, in any order
    assert default.members != ["quality", "brisque"]
    monkeypatch.setenv("JUDGE_LOCAL_MEMBERS", "quality,pixels")
    with pytest.raises(ValueError, match=r"unknown members \['pixels'\]"):
        predictor_mod.member_filter()


def test_query_vectors_cover_every_feature_member(memory, monkeypatch):
    monkeypatch.setenv("JUDGE_LOCAL_MEMBERS", ",".join(ALL_MEMBERS))
    model = MemoryModel(memory)
    img = Image.open(memory.image_path(memory.records[0])).convert("RGB")
    q = model.query_vectors(None, img, None)
    assert {"quality", "prototype", "brisque", "niqe", "camera"} <= set(q)
    est = model.predict(q, ["appeal"], exclude=set())
    assert 1 <= est["appeal"][0] <= 5


def test_cached_choices_naming_a_missing_member_are_recomputed(memory, tmp_path: Path):
    from skills.local.selection import Choice, cache_path, save_choices

    stale = Choice(("camera",), 3.0, 1.0, 0.5, 12, (0.0,), (1.0,), 0.3, (1.0,))
    key = f"{predictor_mod.config_key()}-all"
    save_choices(cache_path(tmp_path / "cache", memory.manifest.checksum, key), {"appeal": stale})
    assert list((tmp_path / "cache").glob("choices-*")), "the stale cache file was not written"
    got = MemoryModel(memory).choices()["appeal"]
    assert "camera" not in got.spaces and got.usable
