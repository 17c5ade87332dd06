"""Memories on disk: build, reload, self-retrieval, encoder checks, incremental add, atomicity."""

from __future__ import annotations

import numpy as np
import pytest

from memory.encoders.base import Encoder
from memory.exemplar import ExemplarError, load_exemplars
from memory.memory import open_image
from memory.store import MemoryStore
from tests.memory.conftest import prompt_records, write_jsonl


def test_prompt_memory_finds_itself_after_reload(tmp_path, prompt_file):
    recs = load_exemplars(prompt_file)
    MemoryStore(tmp_path / "store").build("prompt-CO", recs, base_dir=prompt_file.parent)
    mem = MemoryStore(tmp_path / "store").load("prompt-CO")  # fresh store: from disk
    assert mem.manifest.count == 8 and mem.manifest.modality == "prompt"
    assert mem.manifest.encoder.dim == mem.vectors.shape[1]
    for rec in recs:
        top = mem.search(rec.prompt, k=3)[0]
        assert top.record.id == rec.id and top.similarity >= 0.99


def test_image_memory_finds_itself_after_reload(tmp_path, image_file):
    recs = load_exemplars(image_file)
    MemoryStore(tmp_path / "s").build("image-OE", recs, base_dir=image_file.parent)
    mem = MemoryStore(tmp_path / "s").load("image-OE")
    assert mem.manifest.dimensions == ["mood_atmosphere", "visual_composition"]
    assert len(mem.records) == len(recs)
    for rec in mem.records:  # stored paths are relative to the version folder
        top = mem.search(open_image(mem.image_path(rec)), k=1)[0]
        assert top.record.id == rec.id and top.similarity >= 0.99


def test_hnsw_index_also_finds_itself(tmp_path, prompt_file):
    recs = load_exemplars(prompt_file)
    mem = MemoryStore(tmp_path).build("p", recs, base_dir=prompt_file.parent, index_kind="hnsw")
    assert mem.manifest.index == "hnsw"
    assert all(mem.search(r.prompt, k=1)[0].record.id == r.id for r in recs)


class OtherEncoder(Encoder):
    id, modality, dim = "other-text-encoder", "text", 384

    def _encode(self, items, role):
        return np.ones((len(items), self.dim), dtype=np.float32)


def test_query_with_another_encoder_is_refused(tmp_path, prompt_file):
    mem = MemoryStore(tmp_path).build("p", load_exemplars(prompt_file), base_dir=prompt_file.parent)
    with pytest.raises(ValueError, match=r"built with encoder .* refusing .*other-text-encoder"):
        mem.search("anything", encoder=OtherEncoder())


def test_incremental_add_keeps_old_and_versions(tmp_path, prompt_file):
    store = MemoryStore(tmp_path)
    first = store.build("p", load_exemplars(prompt_file), base_dir=prompt_file.parent)
    more = write_jsonl(tmp_path / "more.jsonl", prompt_records(3, start=20))
    second = store.add("p", load_exemplars(more), base_dir=tmp_path)
    assert second.manifest.count == 11 and second.manifest.version == first.manifest.version + 1
    assert second.search(prompt_records(1)[0]["prompt"], k=1)[0].record.id == "p0"
    assert {r.id for r in second.records} >= {"p0", "p20", "p22"}
    # a duplicate id is refused and nothing stored is lost
    with pytest.raises(ExemplarError, match="already in memory"):
        store.add("p", load_exemplars(more), base_dir=tmp_path)
    assert MemoryStore(tmp_path).load("p").manifest.count == 11


def test_failed_build_leaves_the_live_version_untouched(tmp_path, image_file):
    store = MemoryStore(tmp_path / "s")
    recs = load_exemplars(image_file)
    store.build("img", recs, base_dir=image_file.parent)
    broken = [r.model_copy(update={"id": "new", "image": "imgs/missing.png"}) for r in recs[:1]]
    with pytest.raises(ExemplarError, match="cannot read image"):
        store.add("img", broken, base_dir=image_file.parent)
    folder = tmp_path / "s" / "img"
    assert not list(folder.glob(".build-*"))
    assert MemoryStore(tmp_path / "s").load("img").manifest.count == 6


def test_unknown_memory_lists_available(tmp_path, prompt_file):
    store = MemoryStore(tmp_path)
    store.build("prompt-CO", load_exemplars(prompt_file), base_dir=prompt_file.parent)
    with pytest.raises(KeyError, match=r"unknown memory 'nope'.*prompt-CO"):
        store.load("nope")
    assert store.names() == ["prompt-CO"]


def test_old_versions_are_pruned(tmp_path, prompt_file):
    store = MemoryStore(tmp_path)
    for _ in range(4):
        store.build("p", load_exemplars(prompt_file), base_dir=prompt_file.parent)
    versions = sorted(p.name for p in (tmp_path / "p").glob("v*"))
    assert versions == ["v0003", "v0004"]
    assert (tmp_path / "p" / "CURRENT").read_text() == "v0004"
