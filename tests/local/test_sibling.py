"""The ``sibling`` member: a dimension learns from the scores of its most closely related
dimension, chosen and fitted on training rows only."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from scipy.stats import spearmanr

from memory.store import MemoryStore
from skills.local.predictor import MemoryModel
from skills.local.sibling import MIN_SIBLING_RHO, sibling_of
from tests.local.test_local_subjective import records

pytestmark = pytest.mark.usefixtures("predictor_defaults")


def two_scale_memory(root: Path, realism: dict[str, float], flip_group: str | None = None):
    """The family memory with a second scale ``realism`` (per record id); ``flip_group``
    mirrors both scales of one prompt group."""
    recs = []
    for r in records(root / "src"):
        scores = {"appeal": r.scores["appeal"], "realism": realism[r.id]}
        if r.meta["prompt_id"] == flip_group:
            scores = {k: 6 - v for k, v in scores.items()}
        recs.append(r.model_copy(update={"scores": scores}))
    return MemoryStore(root / "store").build("two", recs, base_dir=root / "src")


def follows_appeal(rid: str) -> float:
    """A realism scale ordered like appeal but compressed, with one odd item per family."""
    family, p = rid.split("-")
    base = {"crisp": 3.2, "flat": 2.6, "noisy": 2.0}[family]
    return base + (0.9 if p == "3" else 0.0)


def test_sibling_is_the_most_correlated_scale_on_training_rows_only():
    y = np.array([1.0, 2, 3, 4, 5, 6, 7])
    ys = {"a": y, "close": y + np.array([0, 0.1, 0, 0.1, 0, 0.1, 0]), "loose": y[::-1].copy()}
    rows = np.ones(7, bool)
    assert sibling_of("a", ys, rows) == "close"
    assert sibling_of("loose", ys, rows) is None  # negative relation: never a stand-in
    # the labels of rows outside the training mask are never read
    rows[-1] = False
    spoiled = {**ys, "close": ys["close"].copy()}
    spoiled["close"][-1] = -100.0
    assert sibling_of("a", spoiled, rows) == sibling_of("a", ys, rows) == "close"
    # a weak positive relation does not qualify
    weak = {"a": y, "b": np.array([5.0, 1, 7, 2, 3, 6, 4])}
    assert 0 < spearmanr(weak["a"], weak["b"])[0] < MIN_SIBLING_RHO
    assert sibling_of("a", weak, np.ones(7, bool)) is None
    # of two qualifying scales the closer one wins, whatever their names
    fair, close = np.array([2.0, 1, 3, 5, 4, 7, 6]), np.array([1.0, 2, 3, 4, 5, 7, 6])
    assert MIN_SIBLING_RHO <= spearmanr(y, fair)[0] < spearmanr(y, close)[0]
    assert sibling_of("a", {"a": y, "b": close, "c": fair}, np.ones(7, bool)) == "b"
    assert sibling_of("a", {"a": y, "b": fair, "c": close}, np.ones(7, bool)) == "c"
    # too few shared rows (the other scale is mostly unrated) do not qualify either
    sparse = {"a": y, "b": np.array([1.0, 2, np.nan, np.nan, np.nan, np.nan, np.nan])}
    assert sibling_of("a", sparse, np.ones(7, bool)) is None


def test_sibling_member_is_knn_on_the_related_scale(tmp_path: Path):
    mem = two_scale_memory(tmp_path, {r.id: follows_appeal(r.id) for r in records(tmp_path / "r")})
    model = MemoryModel(mem)
    assert "sibling" in model.members
    train = model.groups != "p0"
    held = np.where(~train)[0]
    assert model.sibling("realism", train) == "appeal"
    got = model._member(
        "sibling", model._row_query("sibling", held), model._y("realism"), train, "realism"
    )
    want = model._knn(
        "memory", model._row_query("memory", held), model._y("appeal"), train, "appeal"
    )[0]
    assert np.allclose(got, want)
    choice = model.choices()["realism"]
    assert choice.usable
    q = {s: model._row_query(s, held[:1])[0] for s in model.members}
    assert 1 <= model.predict(q, ["realism"], set())["realism"][0] <= 5


def test_no_qualifying_sibling_gives_the_training_mean(tmp_path: Path):
    recs = records(tmp_path / "r")
    opposite = {r.id: 6 - r.scores["appeal"] for r in recs}  # a negative relation never qualifies
    model = MemoryModel(two_scale_memory(tmp_path, opposite))
    train = model.groups != "p1"
    assert model.sibling("realism", train) is None
    y = model._y("realism")
    held = np.where(~train)[0]
    pred = model._member("sibling", model._row_query("sibling", held), y, train, "realism")
    assert np.allclose(pred, y[train].mean())


def test_a_one_scale_memory_has_no_sibling_member(tmp_path: Path):
    mem = MemoryStore(tmp_path / "store").build(
        "one", records(tmp_path / "src"), base_dir=tmp_path / "src"
    )
    assert "sibling" not in MemoryModel(mem).members


@pytest.mark.slow
def test_excluded_group_reaches_neither_the_sibling_nor_its_fit(tmp_path: Path):
    realism = {r.id: follows_appeal(r.id) for r in records(tmp_path / "r")}
    a = MemoryModel(two_scale_memory(tmp_path / "a", realism))
    b = MemoryModel(two_scale_memory(tmp_path / "b", realism, flip_group="p0"))
    banned = {r.id for r in a.memory.records if r.meta["prompt_id"] == "p0"}
    assert a.choices(banned) == b.choices(banned)
    assert a.choices() != b.choices()  # with every exemplar allowed the flip is seen
    for i, r in enumerate(a.memory.records):
        if r.id in banned:
            q = {s: a._row_query(s, np.array([i]))[0] for s in a.members}
            assert a.predict(q, ["realism"], banned) == b.predict(q, ["realism"], banned)


def three_scale_memory(root: Path):
    """Scales where the held-out group decides the sibling: ``mirror`` equals realism on
    groups p1-p3 but is inverted on p0; ``loose`` follows realism moderately everywhere. With
    p0 in the training rows ``loose`` is the closer scale, without it ``mirror`` is."""
    recs = records(root / "src")
    level = {"crisp": 4.0, "flat": 3.0, "noisy": 2.0}
    wobble = [0.3, -0.3, 0.5, -0.5]
    out = []
    for r in recs:
        family, p = r.id.split("-")
        realism = level[family] + 0.1 * int(p)
        mirror = 6 - realism if p == "0" else realism
        loose = realism + wobble[int(p)] * (1 if family == "flat" else -1)
        scores = {"realism": realism, "mirror": mirror, "loose": loose}
        out.append(r.model_copy(update={"scores": scores}))
    return MemoryStore(root / "store").build("three", out, base_dir=root / "src")


def test_the_sibling_is_chosen_without_the_excluded_group(tmp_path: Path):
    model = MemoryModel(three_scale_memory(tmp_path))
    banned = {i for i, g in zip(model.ids, model.groups, strict=True) if g == "p0"}
    everyone = np.ones(len(model.ids), bool)
    assert model.sibling("realism", everyone) == "loose"  # the test has teeth
    assert model.sibling("realism", model.groups != "p0") == "mirror"
    assert model.related_scale("realism") == "loose"
    assert model.related_scale("realism", banned) == "mirror"


def test_the_rationale_names_the_related_scale(tmp_path: Path):
    from skills.local.subjective import _estimate
    from skills.types import MemoryContext

    mem = two_scale_memory(tmp_path, {r.id: follows_appeal(r.id) for r in records(tmp_path / "r")})
    model = MemoryModel(mem)
    assert "sibling" in model.choices()["realism"].spaces
    i = model.ids.index("crisp-1")
    image = Image.open(mem.image_path(mem.records[i])).convert("RGB")
    ctx = MemoryContext(memory=mem, vector=np.asarray(mem.vectors)[i], image=image)
    out = _estimate(ctx, ["realism"], mem.records[i].prompt or "")
    why = out.scores["realism"].rationale or ""
    assert "k-NN on a related scale (appeal)" in why, why
