"""The judge's comparison of two edits (the ``edit_compare`` mode): through ``judge compare``
with the fake provider as judge (``POST /v1/compare``: tests/api/test_compare_api.py),
offline with the local backend and the mock, and in edit studies (``[study] compare =
true``): comparisons journalled, the report's pairwise records from them (pseudo-pairwise
as the labelled fallback), resume after SIGKILL asking no comparison twice."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from eval.studies.prompters.mllm import shared_gateway
from judge.cli.main import main
from tests.fakes.provider import FakeProvider
from tests.studies.edit_helpers import (
    calls,
    compared_tasks,
    edit_study_file,
    prefer_darker,
    with_compare,
    write_tasks,
)
from tests.studies.runner_helpers import REPO, kill_after_items, read_jsonl

CRITERIA = {"instruction_following", "image_consistency", "visual_quality"}


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("FAKE_EDIT_KEY", "fake-key")
    shared_gateway.cache_clear()
    yield
    shared_gateway.cache_clear()


def pictures(folder: Path) -> dict[str, Any]:
    """A source, a dark edit (``a``) and a light edit (``b``), and the comparison of them."""
    Image.new("RGB", (64, 48), (120, 120, 120)).save(folder / "src.png")
    Image.new("RGB", (64, 48), (20, 20, 20)).save(folder / "dark.png")
    Image.new("RGB", (64, 48), (240, 240, 240)).save(folder / "light.png")
    item = {"mode": "edit_compare", "id": "c1", "instruction": "Make it darker.",
            "source_image": "src.png", "a": {"image": "dark.png", "model": "x"},
            "b": {"image": "light.png", "model": "y"}}  # fmt: skip
    (folder / "pair.json").write_text(json.dumps(item))
    return item


def test_judge_compare_runs_an_edit_comparison_in_both_orders(
    provider: FakeProvider, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    prefer_darker(provider)
    pictures(tmp_path)
    model = ["--model", "openai/fake-judge", "--api-base", provider.base_url, "--api-key", "k"]
    assert main(["compare", str(tmp_path / "pair.json"), *model, "--votes",
                 str(tmp_path / "votes.jsonl")]) == 0  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    assert result["mode"] == "edit_compare" and result["status"] == "scored"
    assert set(result["criteria"]) == CRITERIA
    for c in result["criteria"].values():  # the darker edit wins whichever is shown first
        assert c["winner"] == "a" and c["position_consistent"] is True
        assert [o["first"] for o in c["orders"]] == ["a", "b"]
    pair_bodies = [c.body for c in provider.wire_calls if "choice" in json.dumps(c.body)]
    text = json.dumps(pair_bodies[0])
    assert "<<<DATA EDIT INSTRUCTION" in text and "Make it darker." in text
    assert "SOURCE image" in text and '"x"' not in text  # editors' names never shown
    votes = read_jsonl(tmp_path / "votes.jsonl")
    assert {(v["model_a"], v["model_b"], v["winner"]) for v in votes} == {("x", "y", "a")}
    # a comparison mode only; bad criteria and identical edits are named
    bad = {**json.loads((tmp_path / "pair.json").read_text()), "mode": "edit"}
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    assert main(["compare", str(tmp_path / "bad.json"), *model]) == 2
    assert "mode: 'edit' is not a comparison mode" in capsys.readouterr().err
    same = {**bad, "mode": "edit_compare", "b": {"image": "dark.png"}, "criteria": ["nope"]}
    (tmp_path / "bad.json").write_text(json.dumps(same))
    assert main(["compare", str(tmp_path / "bad.json"), *model]) == 2
    assert "criteria[0]: unknown edit criterion 'nope'" in capsys.readouterr().err


def test_offline_backends_answer_deterministically(tmp_path: Path, capsys) -> None:
    pictures(tmp_path)
    runs = []
    for args in (["--backend", "local"], ["--model", "mock/judge"]) * 2:
        assert main(["compare", str(tmp_path / "pair.json"), "--no-cache", *args]) == 0
        runs.append(json.loads(capsys.readouterr().out)["criteria"])
    assert runs[0] == runs[2] and runs[1] == runs[3]
    local = runs[0]  # local estimates: the light edit keeps less of the grey source's look
    assert local["image_consistency"]["winner"] in ("a", "b", "tie")
    assert local["image_consistency"]["position_consistent"] is True
    assert local["instruction_following"]["cause"] == "no_model"  # no text edit: no estimate


def test_edit_study_compares_editors_and_the_report_uses_the_comparisons(
    provider: FakeProvider, tmp_path: Path
) -> None:
    write_tasks(tmp_path)
    prefer_darker(provider)
    study = edit_study_file(tmp_path, provider.base_url, mllm_writer=False, n=1)
    out = tmp_path / "out"
    assert main(["study", "run", str(study), "--out", str(out), "--no-progress"]) == 0
    assert not (out / "comparisons.jsonl").exists()
    assert main(["study", "report", str(out), "--bootstrap", "50", "--no-plots"]) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["pairwise"]["source"] == "pseudo" and report["pairwise"]["by_criterion"] == {}
    assert "Votes: pseudo-pairwise" in (out / "report.md").read_text()

    # compare = true on the finished run: only the comparisons are asked
    with_compare(study)
    start = len(provider.wire_calls)
    assert main(["study", "run", str(study), "--out", str(out), "--no-progress"]) == 0
    assert calls(provider, start)["edit"] == 0
    assert sorted(compared_tasks(provider, start)) == sorted(["t_red", "t_green", "t_sign"] * 6)
    lines = read_jsonl(out / "comparisons.jsonl")
    assert [(x["task_id"], x["a"], x["b"]) for x in lines] == [
        (t, "fake", "demo") for t in ("t_red", "t_green", "t_sign")]  # fmt: skip
    assert all(x["status"] == "scored" and set(x["criteria"]) == CRITERIA for x in lines)
    assert all(all(x["position_consistent"].values()) for x in lines)
    start = len(provider.wire_calls)
    assert main(["study", "run", str(study), "--out", str(out), "--no-progress"]) == 0
    assert len(provider.wire_calls) == start  # journalled: nothing asked again

    assert main(["study", "report", str(out), "--bootstrap", "50", "--no-plots"]) == 0
    pw = json.loads((out / "report.json").read_text())["pairwise"]
    assert pw["source"] == "compare" and pw["n_comparisons"] == 3
    assert list(pw["by_criterion"]) == ["instruction_following", "image_consistency",
                                        "visual_quality"]  # fmt: skip
    (record,) = pw["records"]
    wins = sum(1 for x in lines if x["criteria"]["visual_quality"] == "a")
    assert (record["a"], record["b"]) == ("demo", "fake")
    assert record["wins_b"] + record["wins_a"] + record["ties"] == 3
    assert record["wins_b"] == wins and record["ci95"] is not None
    md = (out / "report.md").read_text()
    assert (
        "Votes: the judge's comparison of the two edits" in md and "On visual_quality alone" in md
    )


@pytest.mark.slow
def test_sigkill_mid_comparisons_then_resume_asks_no_comparison_twice(tmp_path: Path) -> None:
    write_tasks(tmp_path)
    env = {**os.environ, "FAKE_EDIT_KEY": "fake-key", "PYTHONPATH": str(REPO)}
    first = FakeProvider(latency=0.05).start()
    try:
        prefer_darker(first)
        study = edit_study_file(tmp_path, first.base_url, mllm_writer=False, n=1,
                                extra="")  # fmt: skip
        with_compare(study)
        cmd = [sys.executable, "-m", "judge.cli.main", "study", "run", str(study), "--no-progress",
               "--out", str(tmp_path / "out")]  # fmt: skip
        proc = subprocess.Popen([*cmd, "--concurrency", "1"], env=env, cwd=tmp_path)
        journal = kill_after_items(proc, tmp_path / "out", 1, timeout_s=120, kind="comparison")
    finally:
        first.stop()
    done = [json.loads(ln)["k"].split("\x1f") for ln in journal.read_text().splitlines()
            if ln.endswith("}")]  # fmt: skip
    compared = {k[1] for k in done if k[0] == "comparison"}
    assert 1 <= len(compared) < 3
    with FakeProvider(port=first.port) as again:
        prefer_darker(again)
        assert subprocess.run(cmd, env=env, cwd=tmp_path, timeout=300).returncode == 0
        asked = set(compared_tasks(again))
    assert asked and not asked & compared  # no comparison journalled before is asked again
    lines = read_jsonl(tmp_path / "out" / "comparisons.jsonl")
    assert sorted(x["task_id"] for x in lines) == ["t_green", "t_red", "t_sign"]


def test_an_edit_study_judged_by_a_running_service(provider: FakeProvider, tmp_path: Path) -> None:
    """``--url``: the edits and their comparisons are judged by the service (its fake judge),
    and a rerun with the same URL asks nothing; another judge is refused."""
    from tests.api.conftest import live_service

    write_tasks(tmp_path)
    prefer_darker(provider)
    study = with_compare(edit_study_file(tmp_path, provider.base_url, mllm_writer=False, n=1))
    env = {"JUDGE_MODEL": "openai/fake-judge", "JUDGE_API_BASE": provider.base_url,
           "JUDGE_API_KEY": "test-key", "JUDGE_RETRIEVAL": "none"}  # fmt: skip
    out = tmp_path / "out"
    with live_service(env, tmp_path / "svc") as svc:
        args = ["study", "run", str(study), "--out", str(out), "--no-progress", "--url"]
        assert main([*args, svc.base_url]) == 0
        lines = read_jsonl(out / "results.jsonl")
        assert [x["status"] for x in lines] == ["scored"] * 6
        assert all(x["success"] is not None and x["metrics"] for x in lines)
        compared = read_jsonl(out / "comparisons.jsonl")
        assert [x["status"] for x in compared] == ["scored"] * 3
        assert all(set(x["criteria"].values()) <= {"a", "b"} for x in compared)
        judged = [c for c in provider.wire_calls if not c.path.endswith("/images/edits")]
        used = sum(x["usage"]["judge"]["calls"] for x in lines)
        assert len(judged) == used + sum(x["usage"]["calls"] for x in compared) > 0
        start = len(provider.wire_calls)
        assert main([*args, svc.base_url]) == 0
        assert len(provider.wire_calls) == start
    assert json.loads((out / "study.json").read_text())["judged_by"] == svc.base_url
    assert main(["study", "run", str(study), "--out", str(out), "--no-progress"]) == 2
