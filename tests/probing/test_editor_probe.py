"""``judge probe run --editor``: the topic tree grown against an image *editor* — the demo
editor, or the fake provider's /v1/images/edits through litellm — on a folder of source
pictures, the scripted fake as LLM and the edit mode (also scripted) as judge."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from eval.probing.context import LOCALISING
from eval.probing.editing import SourcePictures
from judge.cli.main import main
from tests.fakes.probing_script import SHAPE, ProbeScript, block, schema_name
from tests.fakes.provider import FakeProvider
from tests.fakes.provider.responder import messages_text


def probe(base: str, out: Path, *extra: str) -> int:
    return main(["probe", "run", "--model", "openai/fake", "--api-base", base, "--out", str(out),
                 "--quiet", *extra])  # fmt: skip


def sources(folder: Path) -> Path:
    folder.mkdir()
    for k, colour in enumerate(("red", "teal")):
        Image.new("RGB", (64, 48), colour).save(folder / f"s{k}.png")
    (folder / "notes.txt").write_text("not a picture")
    return folder


@pytest.fixture
def edit_judge(probe_fake: FakeProvider, script: ProbeScript) -> None:
    """The edit criteria fail (score 1) exactly for instructions naming the planted colour."""

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        return {"reasoning": "scripted", "score": 1 if script.token in messages_text(body) else 5}

    probe_fake.responder.on(lambda body: schema_name(body) == "EditAnswer", answer)


def test_editor_probe_grows_a_tree_of_failing_edit_topics(
    env: str, edit_judge: None, probe_fake: FakeProvider, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("FAKE_EDIT_KEY", "k")
    out = tmp_path / "run"
    pics = sources(tmp_path / "pics")
    args = ["--topic", "recolouring", "--editor", "openai/fake-editor", "--sources", str(pics),
            "--backend-api-base", env, "--backend-api-key-env", "FAKE_EDIT_KEY",
            "--depth", "2", "--topics", "2", "--inputs", "3", "--images", "1"]  # fmt: skip
    assert probe(env, out, *args) == 0
    tree = json.loads((out / "tree.json").read_text())
    probe_json = json.loads((out / "probe.json").read_text())
    assert probe_json["kind"] == "edit" and probe_json["sources"] == str(pics.resolve())
    assert tree["params"]["localise"] is True
    assert tree["metrics"]["n_nodes"] == 3 and tree["metrics"]["n_inputs"] == 9
    root = tree["root"]
    # the planted inputs (the first 2 of each batch) fail, the others pass
    verdicts = {t["input"]: t["verdicts"][0] for t in root["tests"]}
    assert all(v is ("purple" not in i) for i, v in verdicts.items())
    assert set(verdicts.values()) == {True, False}
    assert tree["metrics"]["bugs"] >= 2 and len(root["children"]) == 2
    forms = [c.body for c in probe_fake.wire_calls if c.path.endswith("/images/edits")]
    assert len(forms) == 9 and {f["prompt"] for f in forms} == {
        t["input"] for n in (root, *root["children"]) for t in n["tests"]
    }
    # the writer was asked for edit instructions (the edit prompt files)
    asked = [c.body for c in probe_fake.wire_calls if schema_name(c.body) == "InputBatch"]
    assert "image-editing model" in asked[0]["messages"][0]["content"]
    calls = probe_fake.calls
    assert probe(env, out) == 0  # resumed from probe.json: an editor run, nothing left to do
    assert probe_fake.calls == calls


def test_a_failing_edit_is_localised_to_the_step_the_editor_cannot_make(
    env: str, edit_judge: None, probe_fake: FakeProvider, script: ProbeScript, tmp_path: Path,
    monkeypatch,
) -> None:  # fmt: skip
    """The LLM splits "A purple giraffe beside a table" into two steps; the judge fails any
    instruction naming purple; localisation must single out the recolouring step, and every
    sub-instruction must edit the failing instruction's own source picture."""
    monkeypatch.setenv("FAKE_EDIT_KEY", "k")

    def steps(body: dict[str, Any]) -> dict[str, Any]:
        text = block(messages_text(body), "INSTRUCTION") or ""
        m = SHAPE.match(text)
        assert m, text
        return {"steps": [f"Paint the {m[2]} {m[1]}", f"Put the {m[2]} {m[3]} a {m[4]}"]}

    probe_fake.responder.on(lambda body: schema_name(body) == "EditSteps", steps)
    out = tmp_path / "run"
    pics = sources(tmp_path / "pics")
    args = ["--topic", "recolouring", "--editor", "openai/fake-editor", "--sources", str(pics),
            "--backend-api-base", env, "--backend-api-key-env", "FAKE_EDIT_KEY",
            "--depth", "1", "--inputs", "3", "--images", "1"]  # fmt: skip
    assert probe(env, out, *args) == 0
    root = json.loads((out / "tree.json").read_text())["root"]
    failures = root["failures"]
    assert len(failures) == 2  # the two planted inputs
    for f in failures:
        m = SHAPE.match(f["input"])
        assert f["status"] == "done" and f["minimal_failing"] == [f"Paint the {m[2]} {m[1]}."]
        paint, put = f"Paint the {m[2]} {m[1]}.", f"Put the {m[2]} {m[3]} a {m[4]}."
        assert {t["prompt"]: t["passed"] for t in f["tests"]} == {paint: False, put: True}
    # each sub-instruction edited the picture its failing instruction edited
    sent = {c.body["prompt"]: c.body["image"][0]["sha256"]
            for c in probe_fake.wire_calls if c.path.endswith("/images/edits")}  # fmt: skip
    for f in failures:
        for t in f["tests"]:
            assert sent[t["prompt"]] == sent[f["input"]]
    calls = probe_fake.calls
    assert probe(env, out) == 0  # resumed: the localisation is journalled, nothing is asked
    assert probe_fake.calls == calls


def test_a_sub_instruction_two_failing_edits_share_edits_each_ones_own_picture(
    env: str, edit_judge: None, probe_fake: FakeProvider, tmp_path: Path, monkeypatch
) -> None:
    """Both planted instructions split into their own recolouring and one identical step;
    localisations run at once, and each must edit the shared step on its own instruction's
    picture (the picture used to follow whichever instruction had claimed the step last)."""
    monkeypatch.setenv("FAKE_EDIT_KEY", "k")

    def steps(body: dict[str, Any]) -> dict[str, Any]:
        m = SHAPE.match(block(messages_text(body), "INSTRUCTION") or "")
        assert m
        return {"steps": [f"Paint the {m[2]} {m[1]}", "Add a small star"]}

    probe_fake.responder.on(lambda body: schema_name(body) == "EditSteps", steps)
    out = tmp_path / "run"
    pics = sources(tmp_path / "pics")  # the two planted instructions hash to different ones
    args = ["--topic", "recolouring", "--editor", "openai/fake-editor", "--sources", str(pics),
            "--backend-api-base", env, "--backend-api-key-env", "FAKE_EDIT_KEY",
            "--depth", "1", "--inputs", "3", "--images", "1"]  # fmt: skip
    assert probe(env, out, *args) == 0
    failures = json.loads((out / "tree.json").read_text())["root"]["failures"]
    assert len(failures) == 2 and all(f["status"] == "done" for f in failures)
    edits = [(c.body["prompt"], c.body["image"][0]["sha256"])
             for c in probe_fake.wire_calls if c.path.endswith("/images/edits")]  # fmt: skip
    own = {f["input"]: next(sha for p, sha in edits if p == f["input"]) for f in failures}
    assert len(set(own.values())) == 2  # the two instructions edit different pictures
    star = [sha for p, sha in edits if p == "Add a small star."]
    assert sorted(star) == sorted(own.values())  # once on each instruction's own picture


def test_concurrent_localisations_each_read_their_own_instructions_picture(
    tmp_path: Path,
) -> None:
    """The mechanism under the test above, with the interleaving forced: two localisations
    are both under way when each asks for the shared sub-instruction's picture."""
    src = SourcePictures.from_folder(sources(tmp_path / "pics"))
    a, b = "A purple giraffe beside a table", "A purple lion under a chair"
    assert src.for_input(a) != src.for_input(b)

    async def localise(parent: str, mine: asyncio.Event, other: asyncio.Event) -> Path:
        token = LOCALISING.set(parent)
        try:
            mine.set()
            await other.wait()  # the other localisation has started too
            return src.for_input("Add a small star.")
        finally:
            LOCALISING.reset(token)

    async def both() -> list[Path]:
        first, second = asyncio.Event(), asyncio.Event()
        return list(await asyncio.gather(localise(a, first, second), localise(b, second, first)))

    assert asyncio.run(both()) == [src.for_input(a), src.for_input(b)]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--editor", "builtin/editor"], "--sources is required with --editor"),
        (["--backend", "builtin/renderer", "--sources", "x"], "--sources goes with --editor"),
        (["--editor", "builtin/editor", "--backend", "builtin/renderer"], "not both"),
        (["--editor", "builtin/painter", "--sources", "PICS"], "unknown built-in editor"),
        (["--editor", "builtin/editor", "--sources", "EMPTY"], "no source pictures"),
    ],
)
def test_bad_editor_options_exit_2(env, tmp_path: Path, capsys, extra, message) -> None:
    pics = sources(tmp_path / "pics")
    (tmp_path / "empty").mkdir()
    extra = [{"PICS": str(pics), "EMPTY": str(tmp_path / "empty")}.get(x, x) for x in extra]
    assert probe(env, tmp_path / "run", "--topic", "t", *extra) == 2
    assert message in capsys.readouterr().err


def test_demo_editor_probe_runs_offline_apart_from_the_llm(
    env: str, edit_judge: None, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    pics = sources(tmp_path / "pics")
    args = ["--topic", "object removal", "--editor", "builtin/editor", "--sources", str(pics),
            "--depth", "1", "--inputs", "3", "--images", "2"]  # fmt: skip
    assert probe(env, out, *args) == 0
    tree = json.loads((out / "tree.json").read_text())
    assert tree["metrics"]["n_images"] == 6
    for test in tree["root"]["tests"]:
        assert len(test["images"]) == 2 and (out / test["images"][0]).read_bytes()[:4] == b"\x89PNG"


def test_editor_from_judge_backends_file(
    env, edit_judge: None, tmp_path: Path, monkeypatch
) -> None:
    file = tmp_path / "backends.toml"
    file.write_text(
        '[[backends]]\nid = "r"\nmodel = "builtin/renderer"\n'
        '[[editors]]\nid = "mine"\nmodel = "builtin/editor"\nsize = "32x32"\n'
    )
    monkeypatch.setenv("JUDGE_BACKENDS", str(file))
    out = tmp_path / "run"
    args = ["--topic", "t", "--editor", "mine", "--sources", str(sources(tmp_path / "pics")),
            "--depth", "1", "--inputs", "1", "--images", "1"]  # fmt: skip
    assert probe(env, out, *args) == 0
    assert json.loads((out / "probe.json").read_text())["backend"]["model"] == "builtin/editor"
