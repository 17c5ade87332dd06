"""A probe seen working offline (issue 48, item 19): the mock model answers the probe's own
questions (inputs, the on-topic review with checklists, child topics, edit steps) from their
material, so ``judge probe run --model mock/judge`` grows a tree; and a run that labels
nothing says why (the nodes' notes) in its exit message."""

from __future__ import annotations

from pathlib import Path

from judge.cli.main import main
from tests.fakes.probing_script import schema_name


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
