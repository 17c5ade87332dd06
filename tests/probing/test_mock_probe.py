"""A probe seen working offline (issue 48, item 19): the mock model answers the probe's own
questions (inputs, the on-topic review with checklists, child topics, edit steps) from their
material, so ``judge probe run --model mock/judge`` grows a tree; and a run that labels
nothing says why (the nodes' notes) in its exit message."""

from __future__ import annotations

import json
from pathlib import Path

from judge.cli.main import main
from tests.fakes.probing_script import schema_name
from tests.fakes.provider import FakeProvider

REPO = Path(__file__).resolve().parents[2]


def run(out: Path, *extra: str) -> int:
    return main(["probe", "run", "--out", str(out), "--quiet", "--depth", "2", "--topics", "2",
                 "--inputs", "2", "--images", "1", *extra])  # fmt: skip


def test_a_run_that_labels_nothing_prints_the_nodes_notes(env, probe_fake, tmp_path, capsys):
    probe_fake.responder.reset()
    rejected = {"results": [{"index": 0, "relevant": False, "checks": []}]}
    probe_fake.responder.on(lambda body: schema_name(body) == "ReviewBatch", rejected)
    probe_fake.responder.on(
        lambda body: schema_name(body) == "InputBatch",
        lambda body: {"inputs": [f"a cat number {len(str(body['messages']))}"]},
    )
    args = ["--topic", "cats", "--backend", "builtin/renderer", "--model", "openai/fake",
            "--api-base", env]  # fmt: skip
    assert run(tmp_path / "run", *args) == 1
    err = capsys.readouterr().err
    assert "no image was labelled" in err
    assert "n0: rejected as off topic or not depictable: a cat number" in err
    assert "0 of 2 inputs were usable" in err


def grown(out: Path) -> dict:
    tree = json.loads((out / "tree.json").read_text())
    m = tree["metrics"]
    assert (m["n_nodes"], m["n_inputs"], m["n_images"]) == (3, 6, 6), tree["root"]["notes"]
    root = tree["root"]
    assert all(t["checks"] and t["status"] == "ok" for t in root["tests"])
    assert len({c["topic"] for c in root["children"]} | {root["topic"]}) == 3
    return tree


def test_the_mock_model_grows_a_probe_tree_offline(env, tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    args = ["--topic", "animals in the snow", "--backend", "builtin/renderer", "--model",
            "mock/judge"]  # fmt: skip
    assert run(out, *args) == 0, capsys.readouterr().err
    tree = grown(out)
    assert all("animals in the snow" in t["input"] for t in tree["root"]["tests"])
    assert "3 nodes, 6 inputs, 6 images" in capsys.readouterr().out


def test_the_mock_model_grows_an_editor_probe_tree_offline(env, tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    pics = REPO / "examples" / "edit_study" / "images"
    args = ["--topic", "recolouring objects", "--editor", "builtin/editor", "--sources", str(pics),
            "--model", "mock/judge"]  # fmt: skip
    assert run(out, *args) == 0, capsys.readouterr().err
    tree = grown(out)
    for failure in (f for node in [tree["root"]] for f in node["failures"]):
        assert failure["scene_graph"]["entities"], failure  # the instruction cut into steps


def test_the_unscripted_fake_provider_grows_a_probe_tree(env, tmp_path: Path) -> None:
    with FakeProvider() as fake:
        args = ["--topic", "kites", "--backend", "builtin/renderer", "--model", "openai/fake",
                "--api-base", fake.base_url]  # fmt: skip
        assert run(tmp_path / "run", *args) == 0
    grown(tmp_path / "run")
