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


def run(out: Path, *extra: str) -> int:
    return main(["probe", "run", "--out", str(out), "--quiet", "--depth", "2", "--topics", "2",
                 "--inputs", "2", "--images", "1", *extra])  # fmt: skip


def test_a_run_that_labels_nothing_prints_the_nodes_notes(env, probe_fake, tmp_path, capsys):
    probe_fake.responder.reset()
    probe_fake.responder.on(lambda body: schema_name(body) == "ReviewBatch",
                            {"results": [{"index": 0, "relevant": False, "checks": []}]})  # fmt: skip
    probe_fake.responder.on(lambda body: schema_name(body) == "InputBatch",
                            lambda body: {"inputs": [f"a cat number {len(body['messages'][1]['content'])}"]})  # fmt: skip
    args = ["--topic", "cats", "--backend", "builtin/renderer", "--model", "openai/fake",
            "--api-base", env]  # fmt: skip
    assert run(tmp_path / "run", *args) == 1
    err = capsys.readouterr().err
    assert "no image was labelled" in err
    assert "n0: rejected as off topic or not depictable: a cat number" in err
    assert "0 of 2 inputs were usable" in err
