"""Edit studies end to end: edit tasks × writers (as written, a fake MLLM rewriter) × editors
(the fake provider's /v1/images/edits through litellm, the demo editor), judged by the fake
judge in edit mode; the report; resume after SIGKILL; bad input."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image, ImageOps

from eval.campaigns.models import CampaignCreate
from eval.campaigns.sources import campaign_body
from eval.studies.prompters.mllm import shared_gateway
from judge.cli.main import main
from tests.fakes.provider import FakeProvider
from tests.studies.edit_helpers import calls, edit_study_file, script_writer, write_tasks
from tests.studies.runner_helpers import REPO, kill_after_items, read_jsonl, stable

pytestmark = pytest.mark.slow  # minutes of work: make test-fast leaves it out (docs/testing.md)


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("FAKE_EDIT_KEY", "fake-key")
    shared_gateway.cache_clear()
    yield
    shared_gateway.cache_clear()


def run(*args: str | Path) -> int:
    return main(["study", "run", *map(str, args), "--no-progress"])


def test_edit_study_end_to_end_and_a_rerun_calls_nothing(
    provider: FakeProvider, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    write_tasks(tmp_path)
    script_writer(provider)
    study = edit_study_file(tmp_path, provider.base_url)
    out = tmp_path / "out"
    assert run(study, "--out", out, "--dry-run") == 0
    assert (
        "12 items (3 tasks x 2 writers x 2 editors), 12 still to finish" in capsys.readouterr().out
    )
    assert provider.calls == 0
    began = time.perf_counter()
    assert run(study, "--out", out) == 0
    wall = time.perf_counter() - began
    usage = json.loads((out / "run.json").read_text())["usage"]
    assert all(0 <= u["busy_s"] <= wall for u in usage.values()), usage  # overlap counts once
    assert "busy" in capsys.readouterr().out
    lines = read_jsonl(out / "results.jsonl")
    assert [(x["task_id"], x["writer"], x["editor"]) for x in lines][:4] == [
        ("t_red", "as-written", "fake"), ("t_red", "as-written", "demo"),
        ("t_red", "rewrite", "fake"), ("t_red", "rewrite", "demo"),
    ]  # fmt: skip
    assert {x["status"] for x in lines} <= {"scored", "partial"}
    n = calls(provider)
    assert n["writer"] == 3 and n["edit"] == 6  # one rewrite per task, one request per edit set
    rewritten = [x for x in lines if x["writer"] == "rewrite"]
    assert all(x["instruction"] == f"Please: {x['request']}" for x in rewritten)
    edit_forms = [c.body for c in provider.wire_calls if c.path.endswith("/images/edits")]
    assert {f["prompt"] for f in edit_forms} >= {
        "Make the square blue.",
        "Please: Remove the square.",
    }
    # the fake editor's edits on disk are its known transformation of the task's source
    red = next(x for x in lines if x["task_id"] == "t_red" and x["editor"] == "fake")
    src = Image.open(tmp_path / "t_red.png").convert("RGB")
    got = Image.open(out / red["images"][0]).convert("RGB")
    assert got.tobytes() == ImageOps.invert(src).tobytes() and len(red["images"]) == 2
    assert set(red["criteria"]) == {"instruction_following", "image_consistency", "visual_quality"}
    assert red["category"] == "objects"
    # a task's two writers give the fake editor the same source, so their edits are the same
    # images, and the judge is asked about the task's request: the same questions, which the
    # judge's response cache answers for whichever item is judged second (scheduling decides
    # which, so neither item's own count can be asserted). Both got every answer, and the
    # model was asked.
    judged = [
        x["usage"]["judge"] for x in lines if x["task_id"] == "t_red" and x["editor"] == "fake"
    ]
    answers = {u["calls"] + u["cache_hits"] for u in judged}
    assert len(judged) == 2 and len(answers) == 1 and answers.pop() > 0, judged
    assert sum(u["calls"] for u in judged) > 0, judged

    before = provider.calls
    assert run(study, "--out", out) == 0
    assert provider.calls == before  # everything is journalled: nothing is asked again
    assert [stable(x) for x in read_jsonl(out / "results.jsonl")] == [stable(x) for x in lines]

    assert main(["study", "report", str(out), "--bootstrap", "50"]) == 0
    report = json.loads((out / "report.json").read_text())
    assert set(report["editors"]) == {"demo", "fake"}
    assert report["editors"]["fake"]["n"] == 6
    assert set(report["by_family"]["fake"]) == {"colour_change", "remove_object", "text_change"}
    assert report["pairwise"]["n_votes"] == 6 and report["pairwise"]["leaderboard"]["models"]
    assert set(report["failures"]["fake"]["metrics"]) >= {"color_shift", "structure_distance"}
    assert sorted(report["plots"]) == sorted(
        f"plots/{n}.png" for n in ("success", "criteria", "categories", "families", "wins",
                                   "failures")
    )  # fmt: skip
    md = (out / "report.md").read_text()
    assert "## Success per edit family" in md and "**Pairwise win rates.**" in md
    # the judged edits as campaign items, through the campaign manifest format
    manifest = out / report["campaign_manifest"]
    body = campaign_body(manifest, campaign_id="e1", kind="rating", criterion="image_consistency")
    ratings = CampaignCreate.model_validate(body)
    assert len(ratings.items) == 12
    one = next(i for i in ratings.items if i.id == "t_red.as-written:fake")
    assert one.instruction == "Make the square blue." and one.source_image.startswith("data:")
    body = campaign_body(manifest, campaign_id="e2", kind="pairwise", criterion="preference")
    pairs = CampaignCreate.model_validate(body)  # editor against editor on each task × writer
    assert len(pairs.items) == 6
    assert {frozenset((i.a.model, i.b.model)) for i in pairs.items} == {frozenset(("demo", "fake"))}


def test_editor_faults_are_recorded_per_item(provider: FakeProvider, tmp_path: Path) -> None:
    write_tasks(tmp_path)
    study = edit_study_file(tmp_path, provider.base_url, mllm_writer=False, builtin=False, n=1)
    provider.fail_next(["refusal", "401"])  # the first two edit requests, in arrival order
    assert run(study, "--out", tmp_path / "out", "--concurrency", "1") == 0
    lines = read_jsonl(tmp_path / "out" / "results.jsonl")
    # which item's request arrives first depends on the threads reading the source images, so
    # the two faults land on two of the three items in either order
    by_status = {x["status"]: x for x in lines}
    assert len(lines) == len(by_status) == 3
    assert set(by_status) - {"blocked", "edit_failed"} <= {"scored", "partial"}
    assert "content policy" in by_status["blocked"]["reason"]
    assert "api_key_env" in by_status["edit_failed"]["reason"]
    assert main(["study", "report", str(tmp_path / "out"), "--no-plots", "--bootstrap", "0"]) == 0
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["failures"]["fake"]["not_judged"] == {"blocked": 1, "edit_failed": 1}


def test_bad_input_is_named(provider: FakeProvider, tmp_path: Path,
                            capsys: pytest.CaptureFixture) -> None:  # fmt: skip
    write_tasks(tmp_path)
    (tmp_path / "mine.csv").write_text(
        "image,instruction,category\nt_red.png,Make it pink.,objects\nnope.png,Make it pink.,x\n"
        "t_green.png,,objects\n"
    )
    study = edit_study_file(tmp_path, provider.base_url, tasks="mine.csv")
    assert run(study, "--out", tmp_path / "o") == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'mine.csv'}:3: source_image: no such file" in err
    assert f"{tmp_path / 'mine.csv'}:4: instruction: empty or too short" in err
    study.write_text(study.read_text().replace('kind = "as_written"', 'kind = "typed"'))
    assert run(study, "--out", tmp_path / "o") == 2
    assert "writers[0].kind: Input should be 'as_written', 'mllm' or 'human'" in (
        capsys.readouterr().err
    )
    study.write_text(study.read_text().replace('kind = "typed"', 'kind = "human"'))
    assert run(study, "--out", tmp_path / "o") == 2
    assert "writers[0]: a human writer needs instructions" in capsys.readouterr().err
    human = 'kind = "human"\ninstructions = "nope.jsonl"'
    study.write_text(study.read_text().replace('kind = "human"', human))
    assert run(study, "--out", tmp_path / "o") == 2
    assert "writers[0].instructions: no such file" in capsys.readouterr().err
    study = edit_study_file(tmp_path, provider.base_url, extra="[run]\nseed = 1\n")
    assert run(study, "--out", tmp_path / "o", "--provider-batch") == 2
    assert "--provider-batch is not available for edit studies" in capsys.readouterr().err
    study.write_text(study.read_text().replace('model = "builtin/editor"', 'model = "builtin/x"'))
    assert run(study, "--out", tmp_path / "o") == 2
    assert "unknown built-in editor 'builtin/x'" in capsys.readouterr().err


def test_suite_i2i_tasks_from_posts_are_read(provider: FakeProvider, tmp_path: Path) -> None:
    write_tasks(tmp_path)
    mask = Image.new("RGBA", (96, 72), (0, 0, 0, 255))
    mask.paste((0, 0, 0, 0), (0, 0, 48, 72))  # the left half is to be edited
    mask.save(tmp_path / "mask.png")
    line = {"id": "post_1", "category": "OE", "brief": "Make the square blue.",
            "tags": {"topic": "community:i2i"}, "source_image": "t_red.png",
            "mask": "mask.png"}  # fmt: skip
    (tmp_path / "suite.i2i.jsonl").write_text(json.dumps(line) + "\n")
    study = edit_study_file(tmp_path, provider.base_url, mllm_writer=False, builtin=True, n=1,
                            tasks="suite.i2i.jsonl")  # fmt: skip
    assert run(study, "--out", tmp_path / "out") == 0
    lines = read_jsonl(tmp_path / "out" / "results.jsonl")
    assert {(x["category"], x["family"]) for x in lines} == {("OE", "community:i2i")}
    (form,) = [c.body for c in provider.wire_calls if c.path.endswith("/images/edits")]
    assert form["mask"]["bytes"] == (tmp_path / "mask.png").stat().st_size
    fake = next(x for x in lines if x["editor"] == "fake")
    got = Image.open(tmp_path / "out" / fake["images"][0]).convert("RGB")
    assert got.getpixel((5, 5)) == (27, 29, 40) and got.getpixel((90, 5)) == (228, 226, 215)


def test_sigkill_mid_run_then_resume_repeats_no_edit(tmp_path: Path) -> None:
    write_tasks(tmp_path)
    # two process start-ups (a kill needs a real process) make most of this test's time
    first = FakeProvider(latency=0.08, hang_s=3.0).start()
    env = {**os.environ, "FAKE_EDIT_KEY": "fake-key", "PYTHONPATH": str(REPO)}
    try:
        script_writer(first)
        study = edit_study_file(tmp_path, first.base_url, builtin=False, n=1)
        cmd = [sys.executable, "-m", "judge.cli.main", "study", "run", str(study), "--no-progress"]
        out = tmp_path / "out"
        # one step at a time, so the kill lands mid-run; the resumed run goes at full width
        proc = subprocess.Popen([*cmd, "--out", str(out), "--concurrency", "1"], env=env,
                                cwd=tmp_path)  # fmt: skip
        journal = kill_after_items(proc, out, 2, timeout_s=120)
    finally:
        first.stop()
    done = {tuple(k.split("\x1f")) for k in json.loads("[" + ",".join(
        ln for ln in journal.read_text().splitlines() if ln.endswith("}")) + "]")
        for k in [k["k"]]}  # fmt: skip
    edited = {k[1:] for k in done if k[0] == "edit"}
    items = {k[1:] for k in done if k[0] == "item"}
    assert 2 <= len(items) < 6
    with FakeProvider(port=first.port, hang_s=3.0) as again:
        script_writer(again)
        resumed = subprocess.run([*cmd, "--out", str(out)], env=env, cwd=tmp_path, timeout=300)
        assert resumed.returncode == 0
        n = calls(again)
    all_items = {(t, w, "fake") for t in ("t_red", "t_green", "t_sign")
                 for w in ("as-written", "rewrite")}  # fmt: skip
    assert n["edit"] == len(all_items - edited)  # no edit made twice
    lines = read_jsonl(out / "results.jsonl")
    assert {(x["task_id"], x["writer"], x["editor"]) for x in lines} == all_items
    assert all(x["status"] in ("scored", "partial") for x in lines)
    for x in lines:  # the edits on disk are whole
        assert Image.open(io.BytesIO((out / x["images"][0]).read_bytes())).size == (96, 72)


def test_edit_study_bench_reports_throughput_and_judge_calls(capsys) -> None:
    from benchmarks import edit_study

    args = ["--latency", "0.01", "--tasks", "2", "--editors", "1", "--edits", "2", "--json"]
    assert edit_study.main(args) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["items"] == 2 and out["statuses"] == {"scored": 2}
    assert out["usage"]["edit"]["calls"] == 2 and out["edited_images_per_s"] > 0
    assert out["judge_calls_per_edit_set"] == out["usage"]["judge"]["calls"] / 2
    assert out["judge_calls_per_edited_image"] == out["judge_calls_per_edit_set"] / 2
    assert out["comparisons"] == 0 and out["judge_calls_per_comparison"] is None
    assert (
        edit_study.main([*args[:4], "--editors", "2", "--edits", "1", "--json", "--compare"]) == 0
    )
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["comparisons"] == 2 and out["judge_calls_per_comparison"] >= 6  # 3 criteria x 2
    assert edit_study.main(["--edits", "9"]) == 2
