"""The AVT exemplar source and the shipped avt-image memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory.sources import from_source
from memory.store import SHIPPED_DIR, MemoryStore

AVT = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "avt-dev"


def test_avt_records_are_real_crowd_means_without_invented_rationales():
    if not AVT.is_dir():
        pytest.fail(f"{AVT} is missing: the tests expect ../shared beside the repository")
    recs, base = from_source(f"avt:{AVT}")
    assert len(recs) >= 70
    assert all(r.modality == "image" and not r.rationales for r in recs)
    assert all(1 <= v <= 5 for r in recs for v in r.scores.values())
    assert {"prompt_matching", "appeal", "realism", "quality"} >= set(recs[0].scores)
    assert all((base / r.image).is_file() for r in recs)


@pytest.mark.slow
def test_shipped_avt_memory_loads_and_finds_its_images():
    store = MemoryStore(SHIPPED_DIR)
    mem = store.load("avt-image")
    assert mem.manifest.modality == "image" and mem.manifest.count >= 70
    assert mem.manifest.dimensions == ["appeal", "prompt_matching", "quality", "realism"]
    from memory.memory import open_image

    for rec in mem.records[:: max(1, mem.manifest.count // 6)]:
        top = mem.search(open_image(mem.image_path(rec)), k=1)[0]
        assert top.record.id == rec.id and top.similarity >= 0.99


def test_unknown_source_suggests():
    with pytest.raises(KeyError, match="did you mean 'avt'"):
        from_source("atv:/x")
