"""``judge tasks check`` and ``judge tasks checklist`` with every option, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.studies.suite import load_suite
from judge.cli.main import main
from tests.fakes.provider import FakeProvider

from .conftest import EXAMPLE, GOOD, check, is_checklist_call, reply, task, write_lines


@pytest.fixture(autouse=True)
def no_judge_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("JUDGE_MODEL", "JUDGE_API_BASE", "JUDGE_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("JUDGE_BACKOFF_BASE_S", "0.001")
    monkeypatch.setenv("JUDGE_MAX_REASKS", "1")


def writer_args(provider: FakeProvider, *extra: str) -> list[str]:
    return ["--model", "openai/fake-writer", "--api-base", provider.base_url, *extra]


# -- check ---------------------------------------------------------------------------------------


def test_check_summarises_the_example_suite(capsys: pytest.CaptureFixture[str]) -> None:
    path = EXAMPLE / "tasks.jsonl"
    assert main(["tasks", "check", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{path}: 12 tasks (OE 4, CO 4, IM 4), 84 checkpoints"
    assert out[1].startswith("primitives (tasks): abstract_intent 5, audience_intent 6")
    assert out[2:] == [
        "primitives not covered: none",
        "tasks without a checklist: none",
        "generated checklists not yet reviewed: none",
    ]


def test_check_json_counts_gaps_and_notes(tmp_path: Path, capsys) -> None:
    (tmp_path / "t.png").write_bytes((EXAMPLE / "targets" / "sunset_peaks.png").read_bytes())
    path = write_lines(
        tmp_path / "tasks.jsonl",
        [
            task("a", tags={"primitives": ["text", "quantity"]}, checklist=[check("c1", "text")]),
            task("b"),
            task("c", "IM", target_image="t.png", checklist=[check("c1", "hard_constraint")]),
        ],
    )
    assert main(["tasks", "check", str(path), "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["tasks"] == 3 and s["categories"] == {"OE": 2, "CO": 0, "IM": 1}
    assert s["primitives"]["text"] == 1 and s["primitives"]["hard_constraint"] == 1
    assert s["primitives_missing"] == [
        "abstract_intent",
        "audience_intent",
        "implicit_style",
        "semantic_negation",
        "attribute_binding",
        "spatial_relation",
    ]
    assert s["without_checklist"] == ["b"] and s["checkpoints"] == 2
    assert s["notes"] == [
        "a: tagged ['quantity'] but no checkpoint checks them",
        "c: an IM target image cannot show ['hard_constraint']",
    ]


def test_check_reports_every_error_with_exit_2(tmp_path: Path, capsys) -> None:
    path = write_lines(
        tmp_path / "tasks.jsonl",
        [task("a", checklist=[check("c1", "colour")]), "{oops", task("a"), task("m", "IM")],
    )
    assert main(["tasks", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "judge tasks check: 4 problem(s):\n" in err
    for line, field in [
        (1, "checklist.0.primitive"),
        (2, "invalid JSON"),
        (3, "id"),
        (4, "target_image"),
    ]:
        assert f"{path}:{line}: {field}" in err
    assert main(["tasks", "check", str(path), "--json"]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["file"] == str(path) and len(out["errors"]) == 4


def test_check_a_missing_file(tmp_path: Path, capsys) -> None:
    assert main(["tasks", "check", str(tmp_path / "nope.jsonl")]) == 2
    assert "nope.jsonl: file does not exist" in capsys.readouterr().err


# -- checklist -----------------------------------------------------------------------------------


def test_checklist_generates_then_skips_then_regenerates(
    provider: FakeProvider, tmp_path: Path, capsys
) -> None:
    provider.on(is_checklist_call, GOOD)
    src = write_lines(
        tmp_path / "tasks.jsonl", [task("hand", checklist=[check("c1")]), task("new")]
    )
    out = tmp_path / "out.jsonl"
    argv = ["tasks", "checklist", str(src), *writer_args(provider, "--out", str(out))]
    assert main([*argv, "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert text.strip() == (
        f"wrote {out}: 1 generated, 0 kept from earlier runs, 0 reviewed, 1 hand-written, 0 failed"
    )
    written = {t.id: t for t in load_suite(out)}
    assert len(written["new"].checklist) == 3 and written["new"].checklist_source is not None
    assert written["hand"].checklist_source is None and provider.calls == 1

    assert main([*argv, "--no-progress"]) == 0  # the second run asks nothing
    text = capsys.readouterr().out
    assert "0 generated, 1 kept from earlier runs" in text
    assert "skipped (already generated; --regenerate replaces): new" in text
    assert provider.calls == 1 and load_suite(out) == list(written.values())

    assert main([*argv, "--regenerate", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["generated"] == ["new"] and report["hand_written"] == ["hand"]
    assert report["out"] == str(out) and report["usage"]["llm_calls"] == 1
    assert provider.calls == 2


def test_checklist_in_place_and_stale_briefs(provider: FakeProvider, tmp_path: Path, capsys):
    provider.on(is_checklist_call, GOOD)
    src = write_lines(tmp_path / "tasks.jsonl", [task("a")])
    argv = ["tasks", "checklist", str(src), *writer_args(provider, "--out", str(src))]
    assert main([*argv, "--no-progress"]) == 0
    (made,) = load_suite(src)
    edited = made.model_copy(update={"brief": "Changed."})
    src.write_text(edited.model_dump_json() + "\n")
    assert main([*argv, "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "stale (the brief or target changed since generation; review or --regenerate): a" in text
    assert provider.calls == 1
    assert main(["tasks", "check", str(src)]) == 0
    assert "note: a: the brief changed since its checklist was generated" in capsys.readouterr().out


def test_checklist_out_elsewhere_rebases_target_paths(
    provider: FakeProvider, suite_dir: Path, capsys
) -> None:
    provider.on(is_checklist_call, reply([("a", "quantity"), ("b", "text")]))
    src = write_lines(
        suite_dir / "tasks.jsonl", [task("im", "IM", target_image="targets/pencils_note.png")]
    )
    out = suite_dir / "reviewed" / "deep" / "tasks.jsonl"
    argv = ["tasks", "checklist", str(src), *writer_args(provider, "--out", str(out))]
    assert main([*argv, "--no-progress"]) == 0
    (t,) = load_suite(out)  # the target still resolves from the new folder
    assert t.target_image == "../../targets/pencils_note.png" and len(t.checklist) == 2


def test_checklist_failures_exit_1_and_name_the_task(
    provider: FakeProvider, tmp_path: Path, capsys
) -> None:
    provider.on(is_checklist_call, reply([("a", "text"), ("b", "text")], [("a", "b"), ("b", "a")]))
    src = write_lines(tmp_path / "tasks.jsonl", [task("loop")])
    out = tmp_path / "out.jsonl"
    argv = ["tasks", "checklist", str(src), *writer_args(provider, "--out", str(out))]
    assert main([*argv, "--no-progress"]) == 1
    captured = capsys.readouterr()
    assert "0 generated" in captured.out and "1 failed" in captured.out
    assert "judge tasks checklist: loop: no usable checklist" in captured.err
    assert "form a cycle" in captured.err
    assert load_suite(out)[0].checklist == []  # written, so the next run retries only this


def test_checklist_api_key_env(provider: FakeProvider, tmp_path: Path, capsys, monkeypatch):
    provider.on(is_checklist_call, GOOD)
    src = write_lines(tmp_path / "tasks.jsonl", [task("a")])
    out = tmp_path / "out.jsonl"
    argv = ["tasks", "checklist", str(src), *writer_args(provider, "--out", str(out))]
    assert main([*argv, "--api-key-env", "MY_WRITER_KEY"]) == 2
    assert "--api-key-env: the variable MY_WRITER_KEY is not set" in capsys.readouterr().err
    monkeypatch.setenv("MY_WRITER_KEY", "sk-test")
    assert main([*argv, "--api-key-env", "MY_WRITER_KEY", "--no-progress"]) == 0
    assert provider.calls == 1


def test_checklist_model_from_the_environment(provider, tmp_path: Path, capsys, monkeypatch):
    provider.on(is_checklist_call, GOOD)
    src = write_lines(tmp_path / "tasks.jsonl", [task("a")])
    argv = ["tasks", "checklist", str(src), "--out", str(tmp_path / "o.jsonl"), "--no-progress"]
    assert main(argv) == 2
    assert "no model to write checklists: pass --model" in capsys.readouterr().err
    monkeypatch.setenv("JUDGE_MODEL", "openai/from-env")
    monkeypatch.setenv("JUDGE_API_BASE", provider.base_url)
    assert main(argv) == 0
    assert provider.requests[0]["model"] == "from-env"


def test_checklist_bad_inputs_exit_2(provider: FakeProvider, tmp_path: Path, capsys) -> None:
    bad = write_lines(tmp_path / "bad.jsonl", ["[1]"])
    good = write_lines(tmp_path / "good.jsonl", [task("a")])
    out_args = writer_args(provider, "--out", str(tmp_path / "o.jsonl"))
    assert main(["tasks", "checklist", str(bad), *out_args]) == 2
    assert f"{bad}:1: expected a JSON object" in capsys.readouterr().err
    assert main(["tasks", "checklist", str(good), *writer_args(provider, "--out", str(bad))]) == 2
    err = capsys.readouterr().err
    assert f"--out {bad} exists but is not a valid suite (fix or move it):" in err
    assert provider.calls == 0
