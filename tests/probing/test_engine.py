"""The probe engine end to end against the scripted fake provider (LLM + judge) and a fake
renderer: tree shape, metrics recomputed by hand, localisation, baseline, overrides, bad LLM
answers, resumption."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from eval.kit.journal import Journal
from eval.probing.overrides import make_override
from eval.probing.runner import run_probe
from tests.fakes.probing_script import block, schema_name
from tests.fakes.provider.responder import messages_text
from tests.probing.conftest import FakeRenderer


def walk(node: dict) -> list[dict]:
    out = [node]
    for child in node["children"]:
        out += walk(child)
    return out


def test_tree_shape_and_metrics_recomputed(make_ctx) -> None:
    ctx = make_ctx(depth=2, topics=2, inputs=3, images=2, localise=False)
    tree = asyncio.run(run_probe(ctx))
    nodes = walk(tree["root"])
    assert [n["id"] for n in nodes] == ["n0", "n0.0", "n0.1"]
    assert [n["depth"] for n in nodes] == [0, 1, 1]
    assert all(len(n["tests"]) == 3 and n["status"] == "done" for n in nodes)
    assert all(len(t["verdicts"]) == 2 for n in nodes for t in n["tests"])
    assert nodes[1]["topic"].startswith("texture of ")
    # independent recomputation from the exported verdicts
    verdicts = [v for n in nodes for t in n["tests"] for v in t["verdicts"]]
    bugs = sum(1 for n in nodes for t in n["tests"] if sum(t["verdicts"]) / 2 < 0.75)
    m = tree["metrics"]
    assert m["n_images"] == len(verdicts) == 18 and m["n_inputs"] == 9
    assert m["apr"] == round(sum(verdicts) / len(verdicts), 4)
    assert m["afr"] == round(1 - sum(verdicts) / len(verdicts), 4)
    assert m["bugs"] == bugs == 6  # 2 of every 3 inputs carry the planted colour
    for n in nodes:
        vs = [v for t in n["tests"] for v in t["verdicts"]]
        assert n["pass_rate"] == round(sum(vs) / len(vs), 4)
    assert all(len(t["input"].split()) <= 77 for n in nodes for t in n["tests"])
    assert tree["root"]["reflection"]


def test_dfs_and_threshold(make_ctx) -> None:
    tree = asyncio.run(
        run_probe(make_ctx(depth=2, topics=2, inputs=2, images=1, localise=False, strategy="dfs"))
    )
    assert [n["id"] for n in walk(tree["root"])] == ["n0", "n0.0", "n0.1"]
    # every root input fails (both carry the planted colour): ρ = 0.5 stops the growth
    tree = asyncio.run(
        run_probe(make_ctx(depth=2, topics=2, inputs=2, images=1, localise=False, threshold=0.5))
    )
    assert tree["root"]["children"] == []
    assert any("below the threshold" in n for n in tree["root"]["notes"])


def test_localisation_finds_planted_part_and_baseline(make_ctx) -> None:
    ctx = make_ctx(depth=1, inputs=3, images=1, baseline=True)
    tree = asyncio.run(run_probe(ctx))
    failures = tree["root"]["failures"]
    assert len(failures) == 2  # the two planted inputs
    for f in failures:
        animal = f["scene_graph"]["entities"][0]["name"]
        assert f["minimal_failing"] == [f"A purple {animal}."]
        assert all(not t["passed"] for t in f["tests"] if "purple" in t["prompt"])
    assert len(tree["root"]["reflections"]) == 2  # the final one saw the failing parts
    # localisation renders are not counted in the metrics
    assert tree["metrics"]["n_images"] == 3
    base = tree["baseline"]
    assert len(base["tests"]) == tree["metrics"]["n_inputs"] == 3
    comp = tree["comparison"]
    assert comp["adaptive"]["bugs"] == 2 and comp["baseline"]["bugs"] == base["metrics"]["bugs"]
    assert comp["apr_gap"] == round(base["metrics"]["apr"] - tree["metrics"]["apr"], 4)
    assert (
        tree["calls"]["localise_render"] >= 2 and tree["calls"]["scene_graph"] == 3
    )  # asked ahead


def test_overrides_feed_later_generation(make_ctx, probe_fake) -> None:
    async def overrides():
        return {"n0/0/0": make_override(True, "ana", "2026-01-01T00:00:00Z")}

    ctx = make_ctx(depth=1, inputs=2, images=1, rounds=2, localise=False, overrides=overrides)
    tree = asyncio.run(run_probe(ctx))
    t0 = tree["root"]["tests"][0]
    assert t0["judge_verdicts"] == [False] and t0["verdicts"] == [True]
    assert t0["overrides"]["0"]["who"] == "ana"
    gens = [b for b in probe_fake.requests if schema_name(b) == "InputBatch"]
    records = block(messages_text(gens[-1]), "TEST RECORDS")
    assert json.loads(records.splitlines()[0])["results"] == [1]
    assert tree["metrics"]["agreement"] == {
        "n_overrides": 1,
        "n_compared": 1,
        "agree": 0,
        "rate": 0.0,
    }


def test_duplicates_malformed_graphs_and_refusals(make_ctx, script) -> None:
    script.duplicates = True
    script.graph_ok = False
    renderer = FakeRenderer(refuse="zebra")
    tree = asyncio.run(run_probe(make_ctx(depth=1, inputs=3, images=1, renderer=renderer)))
    root = tree["root"]
    assert root["status"] == "done"
    assert any("near-duplicate" in n for n in root["notes"])
    assert any("inputs were usable" in n for n in root["notes"])
    assert 1 <= len(root["tests"]) < 3
    assert all(f["status"] == "failed" and "scene graph" in f["reason"] for f in root["failures"])


def test_refused_renders_are_recorded_not_counted(make_ctx) -> None:
    tree = asyncio.run(
        run_probe(
            make_ctx(
                depth=1, inputs=2, images=2, localise=False, renderer=FakeRenderer(refuse="A ")
            )
        )
    )
    tests = tree["root"]["tests"]
    assert all(t["status"] == "refused" and t["reason"] for t in tests)
    assert tree["metrics"]["n_images"] == 0 and tree["metrics"]["apr"] is None


def test_resume_repeats_no_finished_step(make_ctx, probe_fake, tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    first = asyncio.run(
        run_probe(make_ctx(journal=Journal(path), depth=2, topics=2, inputs=2, images=1))
    )
    calls = probe_fake.calls
    renderer = FakeRenderer()
    again = asyncio.run(
        run_probe(
            make_ctx(
                journal=Journal(path), renderer=renderer, depth=2, topics=2, inputs=2, images=1
            )
        )
    )
    assert probe_fake.calls == calls and renderer.calls == []
    assert again["root"] == first["root"]
    # a torn last line (a kill mid-write) is ignored and only that step runs again
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2])
    asyncio.run(
        run_probe(make_ctx(journal=Journal(path), depth=2, topics=2, inputs=2, images=1))
    )
    assert 0 < probe_fake.calls - calls <= 12
