"""``judge probe run`` and ``python -m benchmarks.probe`` as a user runs them: the project's
renderer or the fake provider's images endpoint as the model under test, the scripted fake as
LLM and judge."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks import probe as probe_bench
from judge.cli.main import main
from tests.fakes.provider import FakeProvider

REPO = Path(__file__).resolve().parents[2]


def probe(base: str, out: Path, *extra: str) -> int:
    return main(
        [
            "probe",
            "run",
            "--model",
            "openai/fake",
            "--api-base",
            base,
            "--out",
            str(out),
            "--quiet",
            *extra,
        ]
    )


def small(*extra: str) -> list[str]:
    return ["--depth", "2", "--topics", "2", "--inputs", "2", "--images", "1", *extra]


def test_probe_cli_runs_and_resumes(env, tmp_path: Path, probe_fake, capsys) -> None:
    out = tmp_path / "run"
    code = probe(
        env,
        out,
        "--topic",
        "animals",
        "--backend",
        "builtin/renderer",
        *small(
            "--threshold",
            "0",
            "--bug-threshold",
            "0.5",
            "--strategy",
            "dfs",
            "--max-split-tests",
            "4",
            "--pass-share",
            "1.0",
            "--seed",
            "3",
            "--rounds",
            "1",
            "--baseline",
            "--judge-model",
            "openai/fake-judge",
        ),
    )
    assert code == 0, capsys.readouterr().err
    assert "3 nodes, 6 inputs" in capsys.readouterr().out
    tree = json.loads((out / "tree.json").read_text())
    assert tree["status"] == "done" and tree["params"]["strategy"] == "dfs"
    assert tree["params"]["bug_threshold"] == 0.5 and tree["params"]["seed"] == 3
    assert set(tree["metrics"]) >= {"bugs", "apr", "afr", "n_inputs", "n_images"}
    assert "comparison" in tree and len(tree["baseline"]["tests"]) == 6
    for ref in tree["root"]["tests"][0]["images"]:
        assert (out / ref).read_bytes()[:4] == b"\x89PNG"
    calls = probe_fake.calls
    assert probe(env, out) == 0  # resume with the stored options: nothing left to do
    assert probe_fake.calls == calls
    assert probe(env, out, "--depth", "3") == 2  # other options than the stored ones
    assert "other options" in capsys.readouterr().err


def test_no_localise_flag(env, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert (
        probe(
            env,
            out,
            "--topic",
            "t",
            "--backend",
            "builtin/renderer",
            "--no-localise",
            "--depth",
            "1",
            "--inputs",
            "2",
            "--images",
            "1",
        )
        == 0
    )
    tree = json.loads((out / "tree.json").read_text())
    assert tree["root"]["failures"] == [] and tree["metrics"]["bugs"] == 2
    # a person's verdict in DIR/overrides.json is applied when the run is resumed
    (out / "overrides.json").write_text(
        json.dumps({"n0/0/0": {"verdict": True, "who": "ana", "when": "2026-05-01T10:00:00Z"}})
    )
    assert probe(env, out) == 0
    tree = json.loads((out / "tree.json").read_text())
    assert tree["root"]["tests"][0]["verdicts"] == [True]
    assert tree["metrics"]["bugs"] == 1 and tree["metrics"]["agreement"]["n_compared"] == 1


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_probe_bench_reports_calls_per_stage(capsys) -> None:
    assert probe_bench.main(["--latency", "0.01", "--depth", "1", "--json"]) in (0, 1)
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["nodes"] == 1 and report["inputs"] == 5 and report["bugs"] == 2
    assert report["calls_per_stage"]["scene_graph"] == 5  # asked ahead for every input
    assert report["localisation_subprompts"] > 0 and report["wall_in_L"] > 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--topic", "  ", "--backend", "builtin/renderer"], "topic is empty"),
        (["--topic", "x" * 10_000, "--backend", "builtin/renderer"], "300"),
        (["--topic", "t"], "--backend is required"),
        (["--backend", "builtin/renderer"], "--topic is required"),
        (["--topic", "t", "--backend", "builtin/renderer", "--depth", "0"], "--depth"),
        (["--topic", "t", "--backend", "builtin/renderer", "--bug-threshold", "0"],
         "--bug-threshold: Input should be greater than 0"),
        (["--topic", "t", "--backend", "x" * 129], "--backend: String should have at most 128"),
    ],
)
def test_bad_options_exit_2(env, tmp_path: Path, capsys, args, message) -> None:
    assert probe(env, tmp_path / "r", *args) == 2
    assert message in capsys.readouterr().err


def test_no_llm_exits_3(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.delenv("JUDGE_MODEL", raising=False)
    code = main(
        [
            "probe",
            "run",
            "--topic",
            "t",
            "--backend",
            "builtin/renderer",
            "--out",
            str(tmp_path / "r"),
            "--quiet",
        ]
    )
    assert code == 3 and "JUDGE_MODEL" in capsys.readouterr().err


def test_backend_that_refuses_or_errors(env, tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("IMG_KEY", "k")
    with FakeProvider() as images:
        images.set_fault_rate(1.0, ["refusal"])
        out = tmp_path / "refused"
        assert (
            probe(
                env,
                out,
                "--topic",
                "t",
                "--backend",
                "openai/fake-image",
                "--backend-api-base",
                images.base_url,
                "--backend-api-key-env",
                "IMG_KEY",
                "--depth",
                "1",
                "--inputs",
                "2",
                "--images",
                "1",
            )
            == 1
        )
        tests = json.loads((out / "tree.json").read_text())["root"]["tests"]
        assert [t["status"] for t in tests] == ["refused", "refused"]
        assert all(t["reason"] for t in tests)
        assert "no image was labelled (refused" in capsys.readouterr().err
        images.set_fault_rate(1.0, ["500"])
        out = tmp_path / "errors"
        assert (
            probe(
                env,
                out,
                "--topic",
                "t",
                "--backend",
                "openai/fake-image",
                "--backend-api-base",
                images.base_url,
                "--backend-api-key-env",
                "IMG_KEY",
                "--depth",
                "1",
                "--inputs",
                "1",
                "--images",
                "1",
            )
            == 1
        )
        test = json.loads((out / "tree.json").read_text())["root"]["tests"][0]
        assert test["status"] == "failed" and test["reason"]


def test_backend_from_judge_backends_file(env, tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "backends.toml"
    path.write_text('[[backends]]\nid = "card"\nmodel = "builtin/renderer"\n')
    monkeypatch.setenv("JUDGE_BACKENDS", str(path))
    out = tmp_path / "r"
    assert (
        probe(
            env,
            out,
            "--topic",
            "t",
            "--backend",
            "card",
            "--depth",
            "1",
            "--inputs",
            "1",
            "--images",
            "1",
            "--no-localise",
        )
        == 0
    )
    assert json.loads((out / "probe.json").read_text())["backend"]["id"] == "card"


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_sigkill_mid_probe_resumes_without_repeating(tmp_path: Path, script) -> None:
    with FakeProvider(latency=0.05) as fake:
        script.install(fake.responder)
        environ = {**os.environ, "JUDGE_SAFETY": "false", "PYTHONPATH": str(REPO)}
        out = tmp_path / "killed"
        cmd = [
            sys.executable,
            "-m",
            "judge.cli.main",
            "probe",
            "run",
            "--model",
            "openai/fake",
            "--api-base",
            fake.base_url,
            "--quiet",
            "--topic",
            "animals",
            "--backend",
            "builtin/renderer",
            *small(),
            "--out",
            str(out),
        ]
        proc = subprocess.Popen(cmd, env=environ, cwd=REPO)
        journal = out / "journal.jsonl"
        deadline = time.monotonic() + 150
        while time.monotonic() < deadline and proc.poll() is None:
            if journal.exists() and len(journal.read_text().splitlines()) >= 4:
                break
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        before = [json.loads(line)["k"] for line in journal.read_text().splitlines()]
        killed_calls = fake.calls
        assert subprocess.run(cmd, env=environ, cwd=REPO).returncode == 0
        resumed_calls = fake.calls - killed_calls
    assert len(before) >= 4 and killed_calls > 0 and resumed_calls > 0
    keys = [json.loads(line)["k"] for line in journal.read_text().splitlines()]
    assert keys[: len(before)] == before
    assert len(keys) == len(set(keys))  # no finished step ran (and was written) twice
    tree = json.loads((out / "tree.json").read_text())
    assert tree["status"] == "done" and tree["metrics"]["n_nodes"] == 3


@pytest.mark.parametrize(
    ("criterion", "asked"), [("alignment_defects", True), ("alignment", False)]
)
def test_criterion_flag_chooses_the_checks_every_image_gets(
    env, tmp_path: Path, probe_fake: FakeProvider, criterion: str, asked: bool
) -> None:
    args = ["--topic", "t", "--backend", "builtin/renderer", "--no-localise", "--depth", "1"]
    extra = ["--inputs", "1", "--images", "1", "--criterion", criterion]
    assert probe(env, tmp_path / "run", *args, *extra) == 0
    stored = json.loads((tmp_path / "run" / "probe.json").read_text())["params"]
    assert stored["criterion"] == criterion
    judged = [json.dumps(b) for b in probe_fake.requests if "no obvious defects" in json.dumps(b)]
    assert bool(judged) is asked


def test_unknown_criterion_exits_2_listing_the_known_ones(env, tmp_path: Path, capsys) -> None:
    args = ["--topic", "t", "--backend", "builtin/renderer", "--criterion", "vibes"]
    assert probe(env, tmp_path / "run", *args) == 2
    err = capsys.readouterr().err
    assert "unknown criterion 'vibes'" in err and "alignment_defects (" in err


def _probe_run_parser():
    import argparse

    from eval.probing.cli import register

    verbs = argparse.ArgumentParser(prog="judge").add_subparsers()
    register(verbs)
    return verbs.choices["probe"]._subparsers._group_actions[0].choices["run"]  # type: ignore[union-attr]


def test_every_probe_option_is_a_flag_with_the_model_s_default_and_documented() -> None:
    """The options of ``judge probe run`` are generated from ``ProbeParams``: every field is a
    flag of the same name, its --help states the model's default, and every flag of the verb is
    in docs/probing.md."""
    from eval.probing.params import ProbeParams

    run = _probe_run_parser()
    by_dest = {a.dest: a for a in run._actions}
    fields = ProbeParams.model_fields
    assert set(fields) <= set(by_dest), set(fields) - set(by_dest)
    for name, field in fields.items():
        action = by_dest[name]
        assert action.default is None  # only what is given is passed (and checked on resume)
        if field.annotation is not bool and not field.is_required() and field.default is not None:
            assert f"default {field.default}" in action.help, (name, action.help)
    assert by_dest["localise"].option_strings == ["--no-localise"]
    assert by_dest["baseline"].option_strings == ["--baseline"]
    assert by_dest["strategy"].choices == ["bfs", "dfs"]
    doc = (REPO / "docs" / "probing.md").read_text(encoding="utf-8")
    flags = {o for a in run._actions for o in a.option_strings if o.startswith("--")}
    missing = {f for f in flags - {"--help"} if f not in doc}
    assert not missing, f"flags of judge probe run not in docs/probing.md: {sorted(missing)}"


def test_stored_options_clash_with_a_different_flag(env, tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    out.mkdir()
    stored = {"topic": "t", "backend": "builtin/renderer", "depth": 2, "localise": False}
    (out / "probe.json").write_text(json.dumps({"params": stored}), encoding="utf-8")
    assert probe(env, out, "--depth", "3") == 2
    assert "depth (2 stored, 3 given)" in capsys.readouterr().err
    assert probe(env, out, "--no-localise", "--depth", "2", "--depth", "3") == 2
    assert "depth (2 stored, 3 given)" in capsys.readouterr().err
