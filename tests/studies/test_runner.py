"""The study runner end to end: the example suite × fake MLLM prompters × people's prompts ×
a backend, judged by the fake provider; resume after SIGKILL; bad input per item; dry run,
max cost and judging through the service."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PIL import Image

from benchmarks import study as study_bench
from eval.kit.journal import Journal, JournalError, key
from eval.studies.prompters.mllm import shared_gateway
from judge.cli.main import main
from tests.fakes.provider import FakeProvider
from tests.fakes.provider.responder import messages_text
from tests.studies.runner_helpers import (
    REPO,
    calls_by_model,
    copy_suite,
    kill_after_items,
    read_jsonl,
    script_prompter,
    stable,
    study_file,
    subset,
)

PROMPTERS = ("people", "fake-novice", "fake-skilled")


@pytest.fixture(autouse=True)
def _fresh_prompter_cache() -> Iterator[None]:
    shared_gateway.cache_clear()  # each test sees its own prompter calls at the fake
    yield
    shared_gateway.cache_clear()


@pytest.fixture(autouse=True)
def _image_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_IMAGES_KEY", "fake-key")


def run_cli(*args: str | Path) -> int:
    return main(["study", "run", *map(str, args), "--no-progress"])


def _mean(scores: dict) -> float | None:
    vals = [v["score"] for v in scores.values() if v.get("score") is not None]
    return round(sum(vals) / len(vals), 4) if vals else None


def _rate(side: dict) -> float | None:
    verdicts = [i["verdict"] for i in side.get("items", []) if i.get("verdict") is not None]
    return round(100.0 * sum(verdicts) / len(verdicts), 1) if verdicts else None


def test_end_to_end_all_cells_and_a_rerun_calls_nothing(
    provider: FakeProvider, tmp_path: Path
) -> None:
    tasks = copy_suite(tmp_path)
    script_prompter(provider, tasks, tmp_path)
    study = study_file(tmp_path, provider.base_url)
    out = tmp_path / "out"
    began = time.perf_counter()
    assert run_cli(study, "--out", out) == 0
    wall = time.perf_counter() - began

    lines = read_jsonl(out / "results.jsonl")
    keys = [(x["task_id"], x["prompter"], x["backend"]) for x in lines]
    expected = [(t["id"], p, "renderer") for t in tasks for p in PROMPTERS]
    assert keys == expected  # every cell, once, in suite × prompter × backend order
    assert calls_by_model(provider).get("fake-prompter") == 24
    by_task = {t["id"]: t for t in tasks}
    people = {r["task_id"]: r["prompt"] for r in read_jsonl(tmp_path / "human_prompts.jsonl")}
    for line in lines:
        task = by_task[line["task_id"]]
        assert line["status"] in ("scored", "partial"), line["reason"]
        assert line["category"] == task["category"]
        if line["prompter"] == "people":
            assert (line["prompter_kind"], line["condition"]) == ("human", None)
            assert line["prompt"] == people[task["id"]].strip()
        else:
            cond = line["prompter"].removeprefix("fake-")
            assert (line["prompter_kind"], line["condition"]) == ("mllm", cond)
            assert line["prompt"] == f"{cond} prompt for {task['id']}: a careful picture"
        assert len(line["images"]) == 2
        for rel in line["images"]:
            with Image.open(out / rel) as img:
                assert img.size == (256, 256)
        result = line["result"]
        assert result["task_id"] == task["id"]
        assert line["selected_image"] == result["selected_image"] in (0, 1)
        # the summary, recomputed from the judge's Result independently
        s = line["summary"]
        assert s["subjective_prompt"] == _mean(result["subjective"]["prompt"])
        assert s["subjective_image"] == _mean(result["subjective"]["image"])
        assert s["objective_prompt_rate"] == _rate(result["objective"]["prompt"])
        assert s["objective_image_rate"] == _rate(result["objective"]["image"])
        assert [c["id"] for c in s["checks"]] == [c["id"] for c in task["checklist"]]
        if task["category"] == "IM":
            assert s["subjective_image"] is None  # no subjective image scores for imitation
        else:
            assert s["subjective_image"] is not None
        assert line["usage"]["judge"]["calls"] == result["usage"]["llm_calls"] > 0
    record = json.loads((out / "study.json").read_text())
    assert [p["id"] for p in record["prompters"]] == list(PROMPTERS)
    assert len(record["tasks"]) == 12 and record["fingerprint"]
    run = json.loads((out / "run.json").read_text())
    assert run["stopped"] is None and run["usage"]["prompter"]["calls"] == 24
    for stage in run["usage"].values():  # overlapping steps count once: never past the run
        assert 0 <= stage["busy_s"] <= stage["last_done_s"] + 0.001 <= wall

    # the report reads these results: a cell per prompter × backend × category, n from the lines
    assert main(["study", "report", str(out), "--no-plots", "--bootstrap", "50"]) == 0
    report = json.loads((out / "report.json").read_text())
    cells = {(c["prompter"], c["backend"], c["category"]): c for c in report["cells"]}
    assert set(cells) == {(p, "renderer", c) for p in PROMPTERS for c in ("OE", "CO", "IM", "all")}
    for p in PROMPTERS:
        mine = [x for x in lines if x["prompter"] == p]
        assert cells[p, "renderer", "all"]["n_tasks"] == len(mine) == 12
        want = sum(x["summary"]["objective_prompt_rate"] for x in mine) / 12
        got = cells[p, "renderer", "all"]["objective_prompt_rate"]["mean"]
        assert got == pytest.approx(want, abs=0.05)

    before = provider.calls
    assert run_cli(study, "--out", out) == 0  # everything is journalled: nothing to call
    assert provider.calls == before
    assert [stable(x) for x in read_jsonl(out / "results.jsonl")] == [stable(x) for x in lines]


def _journal_kinds(out: Path) -> dict[str, set[tuple[str, ...]]]:
    kinds: dict[str, set[tuple[str, ...]]] = {"prompt": set(), "generation": set(), "item": set()}
    path = out / "journal" / "events.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue  # a torn last line
        kind, *parts = str(event["k"]).split("\x1f")  # the journal's key: kind + parts
        kinds[kind].add(tuple(parts))
    return kinds


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_sigkill_mid_run_then_resume_repeats_nothing(tmp_path: Path) -> None:
    tasks = subset(tmp_path, copy_suite(tmp_path), ("oe_1", "oe_2", "co_1", "co_2", "im_1", "im_2"))
    # the killed run talks to a fake of its own, stopped after the kill: requests the killed
    # process left in flight can only ever reach that one, never the resumed run's count
    first = FakeProvider(latency=0.05, hang_s=3.0).start()
    try:
        script_prompter(first, tasks, tmp_path)
        study = study_file(tmp_path, first.base_url, backend="fake", tasks="small.jsonl")
        env = {**os.environ, "FAKE_IMAGES_KEY": "fake-key", "PYTHONPATH": str(REPO)}
        cmd = [sys.executable, "-m", "judge.cli.main", "study", "run", str(study), "--no-progress"]

        ref = tmp_path / "reference"
        assert run_cli(study, "--out", ref) == 0
        reference = read_jsonl(ref / "results.jsonl")
        per_item = {(x["task_id"], x["prompter"]): x["usage"]["judge"]["calls"] for x in reference}

        out = tmp_path / "out"
        start = first.calls
        proc = subprocess.Popen([*cmd, "--out", str(out)], env=env, cwd=tmp_path)
        kill_after_items(proc, out, 4, timeout_s=240)
    finally:
        first.stop()
    done = _journal_kinds(out)
    assert 4 <= len(done["item"]) < 18, len(done["item"])
    killed_calls = calls_by_model(first, start)

    # the resumed run: a fresh fake on the same address (the study file is unchanged)
    with FakeProvider(port=first.port, hang_s=3.0) as provider:
        script_prompter(provider, tasks, tmp_path)
        resumed = subprocess.run([*cmd, "--out", str(out)], env=env, cwd=tmp_path, timeout=600)
        assert resumed.returncode == 0
        again = calls_by_model(provider)
    # nothing journalled is asked again: each count covers exactly the steps still open
    mllm_pairs = {(t["id"], p) for t in tasks for p in PROMPTERS[1:]}
    assert again.get("fake-prompter", 0) == len(mllm_pairs - {k for k in done["prompt"]})
    open_items = {(t["id"], p) for t in tasks for p in PROMPTERS} - {k[:2] for k in done["item"]}
    generated = {k[:2] for k in done["generation"]}
    assert again.get("fake-image", 0) == len(open_items - generated)
    assert again.get("fake-judge", 0) == sum(per_item[k] for k in open_items)
    assert killed_calls.get("fake-prompter", 0) + again.get("fake-prompter", 0) >= 12

    final = read_jsonl(out / "results.jsonl")
    assert [stable(x) for x in final] == [stable(x) for x in reference]
    for folder in (ref, out):  # and the same report
        assert main(["study", "report", str(folder), "--no-plots", "--bootstrap", "50"]) == 0
    reports = [json.loads((f / "report.json").read_text()) for f in (ref, out)]
    assert reports[0]["cells"] == reports[1]["cells"]
    assert reports[0]["leaderboard"] == reports[1]["leaderboard"]
    for line in final:  # the images on disk are whole and those of the reference run
        for rel in line["images"]:
            assert (out / rel).read_bytes() == (ref / rel).read_bytes()


def test_bad_input_is_recorded_per_item_and_the_run_goes_on(
    provider: FakeProvider, tmp_path: Path
) -> None:
    tasks = copy_suite(tmp_path)
    last_im = [t for t in tasks if t["category"] == "IM"][-1]
    (tmp_path / last_im["target_image"]).unlink()  # a task whose target image is missing
    by_id = {t["id"]: t for t in tasks}

    def asks(task_id: str) -> Callable[[dict], bool]:
        return lambda b: (
            b["model"] == "fake-prompter" and by_id[task_id]["brief"] in messages_text(b)
        )

    provider.on(asks("oe_1"), {"working_notes": "", "prompt": "  "})
    provider.on(
        asks("oe_2"),
        {"working_notes": "", "prompt": "I'm sorry, but I can't help with that."},
    )
    script_prompter(provider, tasks, tmp_path)
    with FakeProvider() as images:
        images.fail_next(["empty", "refusal", "401"])
        study = study_file(tmp_path, provider.base_url, backend="fake", images_base=images.base_url)
        assert run_cli(study, "--out", tmp_path / "out", "--concurrency", "1") == 0
        assert images.calls == 36 - 6  # every item with a prompt asked once
    lines = {(x["task_id"], x["prompter"]): x for x in read_jsonl(tmp_path / "out/results.jsonl")}
    assert len(lines) == 36
    for p in ("fake-novice", "fake-skilled"):
        assert lines["oe_1", p]["status"] == "prompt_failed"
        assert lines["oe_1", p]["reason"].startswith("prompt empty")
        assert lines["oe_2", p]["status"] == "prompt_failed"
        assert lines["oe_2", p]["reason"].startswith("prompt refused")
        missing = lines[last_im["id"], p]
        assert missing["status"] == "prompt_failed" and "target image" in missing["reason"]
    human_im = lines[last_im["id"], "people"]
    assert human_im["status"] == "judge_failed" and "target_image" in human_im["reason"]
    reasons = sorted(
        x["status"] for x in lines.values() if x["reason"] and "generation" in x["reason"]
    )
    assert reasons == ["blocked", "generation_failed", "generation_failed"]
    assert sum(x["status"] in ("scored", "partial") for x in lines.values()) == 36 - 10


def test_dry_run_counts_and_prices_without_calling(
    provider: FakeProvider, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = copy_suite(tmp_path)
    study = study_file(
        tmp_path,
        provider.base_url,
        backend="fake",
        judge="openai/gpt-4o",
        prompter_model="openai/gpt-4o-mini",
    )
    out = tmp_path / "out"
    assert run_cli(study, "--out", out, "--dry-run") == 0
    text = capsys.readouterr().out
    assert provider.calls == 0 and not out.exists()
    assert "items to run: 36 (judge: openai/gpt-4o)" in text
    assert "prompter       24 calls" in text and "generation     36 calls" in text
    assert "unpriced: openai/fake-image" in text
    estimated_judge = int(text.split("judge")[2].split("calls")[0])
    cost = float(text.split("estimated cost: ~$")[1].split()[0])
    assert cost > 0
    script_prompter(provider, tasks, tmp_path, model="gpt-4o-mini")
    assert run_cli(study, "--out", out) == 0
    assert calls_by_model(provider).get("gpt-4o") == estimated_judge  # the estimate is exact


def test_max_cost_stops_cleanly_and_a_rerun_finishes(
    provider: FakeProvider, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = copy_suite(tmp_path)
    script_prompter(provider, tasks, tmp_path, model="gpt-4o")
    study = study_file(tmp_path, provider.base_url, human=False, prompter_model="openai/gpt-4o")
    out = tmp_path / "out"
    assert run_cli(study, "--out", out, "--max-cost", "0.0001", "--concurrency", "1") == 5
    text = capsys.readouterr().out
    run = json.loads((out / "run.json").read_text())
    assert run["stopped"].startswith("max cost reached") and "max cost reached" in text
    assert run["usage"]["prompter"]["cost_usd"] > 0
    partial = read_jsonl(out / "results.jsonl")
    assert len(partial) < 24
    first = calls_by_model(provider).get("gpt-4o", 0)
    assert 1 <= first < 24
    assert run_cli(study, "--out", out) == 0
    assert len(read_jsonl(out / "results.jsonl")) == 24
    assert calls_by_model(provider).get("gpt-4o") == 24  # no prompt was asked twice


def test_max_cost_from_the_study_file(provider: FakeProvider, tmp_path: Path) -> None:
    tasks = subset(tmp_path, copy_suite(tmp_path), ("oe_1", "co_1", "im_1"))
    script_prompter(provider, tasks, tmp_path, model="gpt-4o")
    study = study_file(
        tmp_path,
        provider.base_url,
        human=False,
        mllm=("novice",),
        prompter_model="openai/gpt-4o",
        tasks="small.jsonl",
        extra="[run]\nmax_cost_usd = 0.0001\n",
    )
    assert run_cli(study, "--out", tmp_path / "out", "--concurrency", "1") == 5
    assert calls_by_model(provider).get("gpt-4o") == 1


@pytest.mark.slow
def test_bench_command_reports_wall_over_latency(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--latency", "0.05", "--tasks", "3", "--images", "1", "--json"]
    args += ["--size", "128x128", "--route", "hosted_vllm"]
    assert study_bench.main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["items"] == 6 and out["statuses"] == {"scored": 6}
    assert (out["size"], out["route"]) == ("128x128", "hosted_vllm")
    assert abs(out["wall_over_latency"] - out["wall_s"] / 0.05) < 0.2 and out["cpu_s"] > 0
    assert out["usage"]["generation"]["calls"] == 6 and out["usage"]["prompter"]["calls"] == 6
    assert study_bench.main(["--latency", "0"]) == 2


def test_a_changed_study_does_not_resume_into_an_old_folder(
    provider: FakeProvider, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy_suite(tmp_path)
    study = study_file(tmp_path, provider.base_url, mllm=(), judge=None)
    out = tmp_path / "out"
    (out / "journal").mkdir(parents=True)
    (out / "study.json").write_text('{"fingerprint": "something-else"}')
    assert run_cli(study, "--out", out) == 2
    assert "holds a run of a different study" in capsys.readouterr().err
    assert run_cli(study, "--out", out, "--max-cost", "0") == 2
    assert run_cli(study, "--out", out, "--concurrency", "0") == 2


def test_judging_through_the_service(provider: FakeProvider, tmp_path: Path) -> None:
    from tests.api.conftest import live_service

    tasks = copy_suite(tmp_path)
    subset(tmp_path, tasks, ("oe_1", "co_1", "im_1"))
    script_prompter(provider, tasks, tmp_path)
    study = study_file(
        tmp_path, provider.base_url, mllm=("skilled",), judge=None, tasks="small.jsonl"
    )
    env = {
        "JUDGE_MODEL": "openai/fake-judge",
        "JUDGE_API_BASE": provider.base_url,
        "JUDGE_API_KEY": "test-key",
        "JUDGE_RETRIEVAL": "none",
    }
    with live_service(env, tmp_path / "svc") as svc:
        assert run_cli(study, "--out", tmp_path / "out", "--url", svc.base_url) == 0
    lines = read_jsonl(tmp_path / "out" / "results.jsonl")
    assert len(lines) == 6
    for line in lines:
        assert line["status"] in ("scored", "partial"), line["reason"]
        assert line["result"]["provenance"]["judge_models"] == ["openai/fake-judge"]
    judged = calls_by_model(provider).get("fake-judge", 0)
    assert judged == sum(x["usage"]["judge"]["calls"] for x in lines) > 0


def test_journal_drops_a_torn_last_line_and_refuses_real_damage(tmp_path: Path) -> None:
    path = tmp_path / "journal" / "events.jsonl"
    j = Journal(path)
    j.put(key("prompt", "oe_1", "p"), {"status": "ok", "prompt": "a"})
    j.close()
    with path.open("a") as fh:
        fh.write('{"k": "item\\u001foe_1\\u001fp\\u001fb", "v": {"sta')  # killed mid-write
    j2 = Journal(path)
    assert j2.torn and j2.get(key("prompt", "oe_1", "p")) and j2.count("item") == 0
    j2.put(key("item", "oe_1", "p", "b"), {"status": "scored"})
    j2.close()
    assert Journal(path).count("item") == 1
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], "garbage", *lines[1:]]) + "\n")
    with pytest.raises(JournalError, match=r"events.jsonl:2: unreadable journal entry"):
        Journal(path)


def test_the_same_study_from_another_folder_has_the_same_fingerprint(tmp_path: Path) -> None:
    """Inputs enter the fingerprint by content: a checkout moved elsewhere resumes its runs, and
    a changed people's-prompts file does not."""
    from eval.studies.config import load_study
    from eval.studies.stages import study_record
    from eval.studies.suite import load_suite

    def fingerprint(folder: Path) -> str:
        folder.mkdir()
        copy_suite(folder)
        cfg = load_study(study_file(folder, "http://127.0.0.1:9", mllm=(), judge=None))
        return study_record(cfg, load_suite(cfg.tasks_path))["fingerprint"]

    first, moved = fingerprint(tmp_path / "a"), fingerprint(tmp_path / "b")
    assert first == moved
    with (tmp_path / "b" / "human_prompts.jsonl").open("a", encoding="utf-8") as f:
        f.write("\n")
    cfg = load_study(tmp_path / "b" / "study.toml")
    assert study_record(cfg, load_suite(cfg.tasks_path))["fingerprint"] != first


def test_a_run_judged_by_one_judge_does_not_resume_with_another(
    provider: FakeProvider, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--url`` is part of what a folder was judged by: switching judges mid-study is refused
    before any call, both ways."""
    from eval.studies.config import load_study
    from eval.studies.stages import study_record
    from eval.studies.suite import load_suite

    start = len(provider.wire_calls)
    copy_suite(tmp_path)
    study = study_file(tmp_path, provider.base_url, mllm=(), judge=None)
    cfg = load_study(study)
    record = study_record(cfg, load_suite(cfg.tasks_path))
    service = tmp_path / "by-service"
    (service / "journal").mkdir(parents=True)
    (service / "study.json").write_text(json.dumps({**record, "judged_by": "http://127.0.0.1:9"}))
    assert run_cli(study, "--out", service) == 2
    err = capsys.readouterr().err
    assert "was judged by http://127.0.0.1:9, this run would judge by this process" in err
    local = tmp_path / "by-process"  # a folder from before the field existed: judged locally
    (local / "journal").mkdir(parents=True)
    (local / "study.json").write_text(json.dumps(record))
    assert run_cli(study, "--out", local, "--url", "http://127.0.0.1:9/") == 2
    assert "judged by this process, this run would judge by http://127.0.0.1:9:" in (
        capsys.readouterr().err
    )
    assert calls_by_model(provider, start) == {}
