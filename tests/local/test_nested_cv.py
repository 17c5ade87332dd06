"""Honest leave-one-prompt-out: the labels of an item's own prompt group reach neither the
choice of the local predictor nor its fit (issue 13, finding 10), and the per-exclusion
choices are cached on disk by memory checksum and exclusion key."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from eval.metaeval.meta_eval import MetaEvalConfig, run_meta_eval
from memory.store import MemoryStore
from skills.local import predictor as predictor_mod
from skills.local.predictor import MemoryModel
from skills.local.selection import exclusion_key
from tests.eval.conftest import avt_pool, read_csv, write_csv  # noqa: F401 - fixture
from tests.local.test_local_subjective import records

pytestmark = pytest.mark.slow  # minutes of work: make test-fast leaves it out (docs/testing.md)

MEAN_COLS = ("prompt_matching_mean", "appeal_mean", "realism_mean", "quality_mean")


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("JUDGE_LOCAL_SELECTION", raising=False)
    return tmp_path / "cache"


def relabel(src: Path, dst: Path, prompt: str) -> Path:
    """A copy of an AVT split whose crowd means for ``prompt`` are mirrored (x -> 6 - x)."""
    shutil.copytree(src, dst)
    header, rows = read_csv(src / "labels.csv")
    for r in rows:
        if r["prompt_id"] == prompt:
            r.update({c: str(6 - float(r[c])) for c in MEAN_COLS if r[c]})
    write_csv(dst / "labels.csv", header, rows)
    return dst


def lopo(data: Path, out: Path) -> dict[str, dict[str, float]]:
    cfg = MetaEvalConfig(
        dataset="avt",
        data=data,
        out=out,
        cv="lopo",
        overrides={"backend": "local", "safety": False},
        progress=False,
        n_boot=0,
        concurrency=2,
    )
    run_meta_eval(cfg)
    rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    return {r["image"]: r["scores"] for r in rows}


@pytest.mark.timeout(600)  # two small leave-one-prompt-out runs through the engine
def test_own_group_labels_do_not_move_lopo_predictions(avt_pool: Path, tmp_path: Path):  # noqa: F811
    changed = relabel(avt_pool, tmp_path / "relabelled", "p01")
    before = lopo(avt_pool, tmp_path / "a")
    after = lopo(changed, tmp_path / "b")
    own = [k for k in before if "/p01." in k]
    assert own and all(before[k] for k in own), "the local backend scored nothing for p01"
    for k in own:
        assert after[k] == before[k], (k, before[k], after[k])
    # the test has teeth: the other prompts' training sets hold p01, and their estimates move
    others = [k for k in before if "/p01." not in k]
    assert any(after[k] != before[k] for k in others)


def family_memory(root: Path, name: str, flip_group: str | None = None):
    recs = records(root / "src")
    if flip_group is not None:
        recs = [
            r.model_copy(update={"scores": {"appeal": 6 - r.scores["appeal"]}})
            if r.meta["prompt_id"] == flip_group
            else r
            for r in recs
        ]
    return MemoryStore(root / "store").build(name, recs, base_dir=root / "src")


def test_choice_for_an_exclusion_ignores_the_excluded_labels(tmp_path: Path):
    a = MemoryModel(family_memory(tmp_path / "a", "fam"))
    b = MemoryModel(family_memory(tmp_path / "b", "fam", flip_group="p0"))
    banned = {r.id for r in a.memory.records if r.meta["prompt_id"] == "p0"}
    assert a.choices(banned) == b.choices(banned)
    assert a.choices() != b.choices()  # with every exemplar allowed the flip is seen
    for i, r in enumerate(a.memory.records):
        if r.id not in banned:
            continue
        q = {s: a._row_query(s, np.array([i]))[0] for s in a.members}
        pa = a.predict(q, ["appeal"], banned)["appeal"][0]
        pb = b.predict(q, ["appeal"], banned)["appeal"][0]
        assert pa == pb


def test_choices_are_cached_per_exclusion_on_disk(tmp_path: Path, _cache_dir: Path, monkeypatch):
    mem = family_memory(tmp_path, "fam")
    banned = {r.id for r in mem.records if r.meta["prompt_id"] == "p1"}
    first = MemoryModel(mem)
    chosen = first.choices(banned)
    key = exclusion_key(banned)
    files = sorted(p.name for p in _cache_dir.glob("choices-*.json"))
    assert any(mem.manifest.checksum[:24] in f and f.endswith(f"-stack-{key}.json") for f in files)

    def refuse(*args, **kwargs):
        raise AssertionError("choices recomputed despite the disk cache")

    monkeypatch.setattr(MemoryModel, "_select", refuse)
    assert MemoryModel(mem).choices(banned) == chosen


def test_selection_strategy_switch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    mem = family_memory(tmp_path, "fam")
    stacked = MemoryModel(mem).choices()["appeal"]
    assert stacked.usable and stacked.weights and len(stacked.weights) == len(stacked.spaces)
    assert 0 < stacked.confidence <= 1 and stacked.rmse is not None
    monkeypatch.setenv("JUDGE_LOCAL_SELECTION", "best")
    best = MemoryModel(mem).choices()["appeal"]
    assert best.usable and not best.weights
    monkeypatch.setenv("JUDGE_LOCAL_SELECTION", "everything")
    with pytest.raises(ValueError, match="JUDGE_LOCAL_SELECTION='everything' is unknown"):
        predictor_mod.strategy()
