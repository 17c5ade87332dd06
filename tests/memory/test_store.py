"""Memories on disk: build, reload, self-retrieval, encoder checks, incremental add, atomicity."""

from __future__ import annotations

import numpy as np
import pytest

from memory.encoders.base import Encoder
from memory.exemplar import ExemplarError, ExemplarRecord, load_exemplars
from memory.memory import Memory, MemoryDamaged, open_image
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


@pytest.mark.slow
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


# -- a refused write changes nothing; damage is reported, catchable and repairable ----------


def test_an_id_given_twice_is_refused_and_current_does_not_move(tmp_path, prompt_file):
    store = MemoryStore(tmp_path)
    store.build("p", load_exemplars(prompt_file), base_dir=prompt_file.parent)
    twice = [ExemplarRecord.model_validate(r) for r in prompt_records(1, start=30) * 2]
    with pytest.raises(ExemplarError, match="more than once"):
        store.add("p", twice, base_dir=tmp_path)
    with pytest.raises(ExemplarError, match="more than once"):
        store.extend("p", twice, base_dir=tmp_path)
    assert (tmp_path / "p" / "CURRENT").read_text() == "v0001"
    assert sorted(p.name for p in (tmp_path / "p").glob("v*")) == ["v0001"]
    assert MemoryStore(tmp_path).load("p").manifest.count == 8


def test_a_version_that_would_not_load_never_goes_live(tmp_path, prompt_file, monkeypatch):
    """Whatever breaks the new version (here: the written index), CURRENT stays."""
    from memory import index as faiss_index

    store = MemoryStore(tmp_path)
    store.build("p", load_exemplars(prompt_file), base_dir=prompt_file.parent)
    real = faiss_index.write_index
    monkeypatch.setattr(
        faiss_index, "write_index", lambda idx, path: path.write_bytes(b"not an index")
    )
    more = load_exemplars(write_jsonl(tmp_path / "m.jsonl", prompt_records(2, start=40)))
    with pytest.raises(MemoryDamaged, match=r"index\.faiss"):
        store.add("p", more, base_dir=tmp_path)
    monkeypatch.setattr(faiss_index, "write_index", real)
    assert (tmp_path / "p" / "CURRENT").read_text() == "v0001"
    assert not list((tmp_path / "p").glob(".build-*"))


def test_damaged_memory_raises_a_catchable_path_free_error_and_repairs(tmp_path, prompt_file):
    store = MemoryStore(tmp_path)
    store.build("p", load_exemplars(prompt_file), base_dir=prompt_file.parent)
    more = load_exemplars(write_jsonl(tmp_path / "m.jsonl", prompt_records(2, start=40)))
    store.add("p", more, base_dir=tmp_path)
    live = tmp_path / "p" / "v0002" / "exemplars.jsonl"
    live.write_text(live.read_text() + live.read_text().splitlines()[0] + "\n")  # dup id
    fresh = MemoryStore(tmp_path)
    with pytest.raises(MemoryDamaged) as info:
        fresh.load("p")
    assert isinstance(info.value, ExemplarError)  # what callers already catch
    assert info.value.version == "v0002" and "already used" in info.value.reason
    assert str(tmp_path) not in str(info.value)
    mem, problem = fresh.status("p")
    assert mem is None and problem is not None
    with pytest.raises(MemoryDamaged):
        fresh.add("p", load_exemplars(prompt_file)[:1], base_dir=prompt_file.parent)
    repaired = fresh.repair("p")
    assert repaired.manifest.version == 1 and repaired.manifest.count == 8
    assert (tmp_path / "p" / "CURRENT").read_text() == "v0001"


def test_extend_creates_then_adds(tmp_path):
    store = MemoryStore(tmp_path)
    one = load_exemplars(write_jsonl(tmp_path / "a.jsonl", prompt_records(2)))
    two = load_exemplars(write_jsonl(tmp_path / "b.jsonl", prompt_records(2, start=2)))
    assert store.extend("p", one, base_dir=tmp_path).manifest.count == 2
    assert store.extend("p", two, base_dir=tmp_path).manifest.count == 4


def test_concurrent_extends_of_a_new_memory_lose_nothing(tmp_path):
    """Twenty threads create the same memory at once: all twenty exemplars are kept."""
    from concurrent.futures import ThreadPoolExecutor

    store = MemoryStore(tmp_path)
    batches = [
        load_exemplars(write_jsonl(tmp_path / f"{i}.jsonl", prompt_records(1, start=i)))
        for i in range(20)
    ]
    with ThreadPoolExecutor(20) as pool:
        list(pool.map(lambda recs: store.extend("p", recs, base_dir=tmp_path), batches))
    assert MemoryStore(tmp_path).load("p").manifest.count == 20


def test_a_failed_add_removes_the_image_files_it_wrote(tmp_path, image_file):
    store = MemoryStore(tmp_path / "s")
    recs = load_exemplars(image_file)
    store.build("img", recs, base_dir=image_file.parent)
    good = (image_file.parent / "imgs" / "im0.png").read_bytes()
    bad = [
        recs[0].model_copy(update={"id": "n1", "image": "images/a.img"}),
        recs[0].model_copy(update={"id": "n2", "image": "images/b.img"}),
    ]
    images = {"images/a.img": good, "images/b.img": b"not an image"}
    with pytest.raises(ExemplarError, match="exemplar 'n2': cannot read image") as info:
        store.extend("img", bad, base_dir=tmp_path / "s" / "img", images=images)
    assert str(tmp_path) not in str(info.value)
    assert not list((tmp_path / "s" / "img").rglob("*.img"))
    assert MemoryStore(tmp_path / "s").load("img").manifest.count == 6


def test_a_reader_whose_version_is_pruned_while_it_opens_reads_the_live_one(
    tmp_path, prompt_file, monkeypatch
):
    """Readers take no lock: two adds can make a new version live and prune the one a reader
    just found in CURRENT. The reader then opens the live version instead of failing."""
    store = MemoryStore(tmp_path)
    store.build("p", load_exemplars(prompt_file), base_dir=prompt_file.parent)
    reader = MemoryStore(tmp_path)  # its own cache: it must open from disk
    real_open = Memory.open.__func__
    raced: list[str] = []

    def open_after_two_adds(cls, folder):
        if not raced:
            raced.append(folder.name)
            for start in (20, 30):  # two more versions: the one being opened is pruned
                more = write_jsonl(tmp_path / f"more{start}.jsonl", prompt_records(2, start=start))
                store.add("p", load_exemplars(more), base_dir=tmp_path)
            assert not folder.exists()
        return real_open(cls, folder)

    monkeypatch.setattr(Memory, "open", classmethod(open_after_two_adds))
    mem = reader.load("p")
    assert raced == ["v0001"]
    assert mem.manifest.version == 3 and mem.manifest.count == 12


def test_a_damaged_live_version_still_fails_the_reader(tmp_path, prompt_file):
    store = MemoryStore(tmp_path)
    store.build("p", load_exemplars(prompt_file), base_dir=prompt_file.parent)
    (tmp_path / "p" / "v0001" / "index.faiss").write_bytes(b"garbage")
    with pytest.raises(MemoryDamaged, match=r"index\.faiss"):
        MemoryStore(tmp_path).load("p")
