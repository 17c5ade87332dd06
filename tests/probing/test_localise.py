"""Scene graphs and the localisation algorithm (no model: the test function is scripted)."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import ValidationError

from eval.probing.localise import localise
from eval.probing.scene_graph import SceneGraph, all_atoms, checks_for, closure, compose, split

GRAPH = {
    "context": ["at dusk"],
    "entities": [
        {"name": "moon", "attributes": ["tiny", "black"]},
        {"name": "cloud", "attributes": ["big", "white"]},
    ],
    "relations": [{"name": "within", "entities": ["moon", "cloud"]}],
}


def scripted(fails):
    calls: list[str] = []

    async def test(text: str, checks: list[str]):
        calls.append(text)
        ok = not fails(text)
        return ok, float(ok), []

    return test, calls


def test_compose_says_exactly_the_atoms() -> None:
    g = SceneGraph.model_validate(GRAPH)
    assert compose(g, all_atoms(g)) == "A tiny black moon within a big white cloud, at dusk."
    assert compose(g, {"A1.0"}) == "A big cloud."
    assert closure(g, {"R0"}) == {"R0", "E0", "E1"}
    assert checks_for(g, {"A0.1", "C0"}) == [
        "The image shows a black moon.",
        "The scene is at dusk.",
    ]


def test_split_relations_first_then_nodes() -> None:
    g = SceneGraph.model_validate(GRAPH)
    rels, rest = split(g, all_atoms(g))
    assert rels == {"R0"} and "R0" not in rest
    left, right = split(g, rest)
    assert (
        compose(g, left) == "A tiny black moon."
        and compose(g, right) == "A big white cloud, at dusk."
    )


def test_localise_finds_the_planted_part() -> None:
    g = SceneGraph.model_validate(GRAPH)
    test, calls = scripted(lambda t: "black" in t)
    out = asyncio.run(localise(g, test, max_tests=30))
    assert out.minimal_failing == ["A black moon."]
    assert len(calls) == len(set(calls))  # no sub-prompt rendered twice


def test_localise_combination_needs_both_halves() -> None:
    g = SceneGraph.model_validate(GRAPH)
    test, _ = scripted(lambda t: "moon" in t and "white" in t)
    out = asyncio.run(localise(g, test, max_tests=40))
    assert out.minimal_failing and all("moon" in m and "white" in m for m in out.minimal_failing)


def test_localise_stops_at_the_budget() -> None:
    g = SceneGraph.model_validate(GRAPH)
    test, calls = scripted(lambda t: True)
    out = asyncio.run(localise(g, test, max_tests=3))
    assert out.exhausted and len(calls) <= 3


@pytest.mark.parametrize(
    "bad",
    [
        {"entities": []},
        {"entities": [{"name": "a"}, {"name": "A"}]},
        {"entities": [{"name": "a"}], "relations": [{"name": "on", "entities": ["a", "b"]}]},
    ],
)
def test_malformed_graphs_are_rejected(bad: dict) -> None:
    with pytest.raises(ValidationError):
        SceneGraph.model_validate(bad)
