"""Rater agreement as exemplar weights: exemplar fields, the AVT source, the weights, and
their effect on the local predictor's fit (with a plain fallback when raters are unknown)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from memory.exemplar import ExemplarRecord
from memory.sources.avt import rater_spread
from memory.sources.avt import records as avt_records
from memory.store import MemoryStore
from skills.local.agreement import agreement_weights
from skills.local.predictor import MemoryModel
from skills.local.selection import stack
from skills.local.settings import weighting
from tests.local.test_local_subjective import records

BASE = {"id": "a", "modality": "image", "image": "a.png", "scores": {"appeal": 3.0}}


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("JUDGE_LOCAL_WEIGHTS", raising=False)
    monkeypatch.delenv("JUDGE_LOCAL_MEMBERS", raising=False)
    return tmp_path / "cache"


def test_exemplar_spread_fields_validate_and_give_the_variance_of_the_mean():
    rec = ExemplarRecord.model_validate(
        {**BASE, "score_sd": {"appeal": 1.2}, "score_n": {"appeal": 16}}
    )
    assert rec.score_variance("appeal") == pytest.approx(1.44 / 16)
    assert ExemplarRecord.model_validate(BASE).score_variance("appeal") is None
    bad = [
        ({"score_sd": {"realism": 1.0}}, "score_sd for dimensions without a score"),
        ({"score_sd": {"appeal": -1.0}}, "must be >= 0"),
        ({"score_n": {"appeal": 0}}, "must be >= 1"),
    ]
    for extra, message in bad:
        with pytest.raises(ValidationError, match=message):
            ExemplarRecord.model_validate({**BASE, **extra})


def _avt_folder(root: Path, with_ratings: bool) -> Path:
    (root / "images" / "g").mkdir(parents=True)
    from PIL import Image

    rows = []
    for i in range(2):
        image = f"images/g/p0{i}.png"
        Image.new("RGB", (8, 8), "red").save(root / image)
        rows.append(
            {
                "image": image,
                "generator": "g",
                "prompt_id": f"p0{i}",
                "prompt": "x",
                "appeal_mean": "3.0",
                "quality_mean": "2.5",
            }
        )
    with open(root / "labels.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    if with_ratings:
        with open(root / "ratings.csv", "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["study", "rater_id", "image", "scale", "rating"])
            for rater, (a, q) in enumerate([(1, 2), (5, 3), (3, 3)]):
                w.writerow(["s1", rater, "images/g/p00.png", "appeal", a])
                w.writerow(["s2", rater, "images/g/p00.png", "image_quality", q])
            w.writerow(["s1", 0, "images/g/p00.png", "appeal", 3])  # a second look: averaged
    return root


def test_avt_source_records_rater_spread_and_falls_back_without_ratings(tmp_path: Path):
    folder = _avt_folder(tmp_path / "with", with_ratings=True)
    spread = rater_spread(folder / "ratings.csv")
    assert spread["images/g/p00.png"]["appeal"] == (pytest.approx(1.5275), 3)  # sd of 2, 5, 3
    first, second = avt_records(folder)
    assert first.score_n == {"appeal": 3, "quality": 3}
    assert first.score_sd["quality"] == pytest.approx(0.5774, abs=1e-4)
    assert second.score_sd == {} and second.score_variance("appeal") is None
    plain = avt_records(_avt_folder(tmp_path / "without", with_ratings=False))
    assert all(not r.score_sd and not r.score_n for r in plain)


def test_agreement_weights_favour_firm_means_moderately_and_fall_back_to_equal(monkeypatch):
    assert weighting() == "equal"  # opt-in
    y = np.array([1.0, 2.0, 4.0, 5.0, 3.0])
    var = np.array([0.01, 0.01, 0.3, 0.01, 0.01])
    rows = np.array([True, True, True, True, False])
    w = agreement_weights(var, y, rows)
    assert w[2] < w[0] == w[1] == w[3] and w[4] == 1.0
    assert np.mean(w[rows]) == pytest.approx(1.0) and w[0] / w[2] < 2  # moderate, not 30x
    unknown = var.copy()
    unknown[1] = np.nan
    assert (agreement_weights(unknown, y, rows) == 1).all()
    assert agreement_weights(unknown, y, rows & (np.arange(5) != 1))[2] < 1  # row 1 not used
    monkeypatch.setenv("JUDGE_LOCAL_WEIGHTS", "votes")
    with pytest.raises(ValueError, match="JUDGE_LOCAL_WEIGHTS='votes' is unknown"):
        weighting()


def test_weighted_stack_follows_the_rows_raters_agreed_on():
    rng = np.random.default_rng(0)
    y = rng.uniform(1, 5, 40)
    good, bad = y + rng.normal(0, 0.3, 40), rng.normal(0, 1, 40)
    firm = np.arange(40) < 30
    bad[~firm] = y[~firm] * 3  # member "bad" explains only the rows raters disagreed on
    oof = {"good": good, "bad": bad}
    rows = np.ones(40, bool)
    w = np.where(firm, 3.0, 0.05)
    plain, weighted = stack(oof, y, rows), stack(oof, y, rows, w)
    share = {c.spaces: dict(zip(c.spaces, c.weights, strict=True)) for c in (plain, weighted)}
    assert share[weighted.spaces].get("bad", 0.0) < share[plain.spaces].get("bad", 0.0)


def _memory(root: Path, spread: dict[str, float] | None):
    recs = records(root / "src")
    if spread is not None:
        recs = [
            r.model_copy(
                update={
                    "score_sd": {"appeal": spread.get(r.meta["prompt_id"], 0.5)},
                    "score_n": {"appeal": 20},
                }
            )
            for r in recs
        ]
    return MemoryStore(root / "store").build("fam", recs, base_dir=root / "src")


@pytest.mark.slow
def test_predictor_uses_rater_spread_and_ignores_it_when_absent(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("JUDGE_LOCAL_WEIGHTS", "agreement")
    weighted = MemoryModel(_memory(tmp_path / "w", {"p1": 3.0}))
    plain = MemoryModel(_memory(tmp_path / "p", None))
    y = weighted._y("appeal")
    rows = np.ones(len(y), bool)
    w = weighted._weights("appeal", y, rows)
    noisy = weighted.groups == "p1"
    assert w[noisy].max() < w[~noisy].min() and (plain._weights("appeal", y, rows) == 1).all()
    assert weighted.choices()["appeal"] != plain.choices()["appeal"]
    monkeypatch.setenv("JUDGE_LOCAL_WEIGHTS", "equal")
    off = MemoryModel(weighted.memory).choices()["appeal"]
    assert off.weights == pytest.approx(plain.choices()["appeal"].weights)


@pytest.mark.slow
def test_excluded_items_rater_spread_does_not_move_their_choice(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("JUDGE_LOCAL_WEIGHTS", "agreement")
    a = MemoryModel(_memory(tmp_path / "a", {"p0": 0.1}))
    b = MemoryModel(_memory(tmp_path / "b", {"p0": 3.0}))
    banned = {r.id for r in a.memory.records if r.meta["prompt_id"] == "p0"}
    assert a.choices(banned) == b.choices(banned)
    assert a.choices() != b.choices()  # with p0 allowed its spread moves the fit
