"""Retrieval strategies for ablations: similarity, random, fixed, none."""

from __future__ import annotations

import pytest

from memory.exemplar import load_exemplars
from memory.retrieval import fixed_set, retrieve
from memory.store import MemoryStore


@pytest.fixture
def mem(tmp_path, prompt_file):
    return MemoryStore(tmp_path).build(
        "p", load_exemplars(prompt_file), base_dir=prompt_file.parent
    )


def test_similarity_is_top_k(mem):
    hits = retrieve(mem, "neon cyberpunk market in the rain", k=3)
    assert len(hits) == 3 and hits[0].record.id == "p4"
    assert hits[0].similarity >= hits[1].similarity >= hits[2].similarity


def test_none_and_zero_k(mem):
    assert retrieve(mem, "x", strategy="none") == []
    assert retrieve(mem, "x", k=0) == []


def test_fixed_is_the_same_diverse_set_for_every_query(mem):
    a = [h.record.id for h in retrieve(mem, "a fox logo", k=3, strategy="fixed")]
    b = [h.record.id for h in retrieve(mem, "misty mountains", k=3, strategy="fixed")]
    assert a == b and len(set(a)) == 3
    means = [sum(mem.records[i].scores.values()) for i in fixed_set(mem.records, 3, [])]
    assert min(means) < max(means)  # spread over the score range


def test_random_is_seeded_by_the_query(mem):
    a = [h.record.id for h in retrieve(mem, "a fox logo", k=3, strategy="random")]
    again = [h.record.id for h in retrieve(mem, "a fox logo", k=3, strategy="random")]
    others = {
        tuple(h.record.id for h in retrieve(mem, f"query {i}", k=3, strategy="random"))
        for i in range(6)
    }
    assert a == again and len(others) > 1


def test_dimension_filter_and_exclusion(mem):
    hits = retrieve(mem, "neon cyberpunk market", k=2, exclude_ids=["p4"])
    assert "p4" not in [h.record.id for h in hits]
    assert retrieve(mem, "x", k=2, dimensions=["not_a_dimension"]) == []


def test_unknown_strategy(mem):
    with pytest.raises(ValueError, match="unknown retrieval strategy"):
        retrieve(mem, "x", strategy="best")
