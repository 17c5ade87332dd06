"""``judge tasks from-posts`` on a synthetic export whose correct samples are known."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from eval.studies.suite import load_suite
from judge.cli.main import main
from tests.evidence.export import Truth
from tests.fakes.provider import FakeProvider

pytestmark = pytest.mark.slow  # minutes of work: make test-fast leaves it out (docs/testing.md)

REPO = Path(__file__).resolve().parents[2]


def _args(posts: Path, out: Path, provider: FakeProvider) -> list[str]:
    return ["tasks", "from-posts", str(posts), "--out", str(out), "--model", "openai/fake-llm",
            "--api-base", provider.base_url, "--keywords", str(posts.parent / "keywords.toml"),
            "--no-progress"]


def _pixels(img: Image.Image) -> bytes:
    return np.asarray(img.convert("RGB")).tobytes()


def _read(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def _same_images(out: Path, saved: list[dict], expected: list[Image.Image]) -> bool:
    got = sorted(_pixels(Image.open(out / s["path"])) for s in saved)
    return got == sorted(_pixels(e) for e in expected)


def test_recovers_every_benchmark_sample(
    correct_llm: FakeProvider, export: tuple[Path, Truth], tmp_path: Path, capsys
) -> None:
    posts, truth = export
    out = tmp_path / "bench"
    assert main(_args(posts, out, correct_llm)) == 1  # malformed lines were reported
    err = capsys.readouterr().err
    for n in truth.malformed_lines:
        assert f"{posts}:{n}: " in err
    report = json.loads((out / "report.json").read_text())
    t2i, i2i = load_suite(out / "suite.t2i.jsonl"), load_suite(out / "suite.i2i.jsonl")
    tasks = t2i + i2i
    by_prompt = {t.brief: t for t in tasks}
    bench = [e for e in truth.expected if e.quality == "benchmark"]
    assert len(tasks) == len(bench) == len(by_prompt)
    for e in bench:
        task = by_prompt[e.prompt]  # the right prompt ...
        prov = task.provenance
        assert (task.source_image is not None) == bool(e.inputs)
        assert _same_images(out, prov["inputs"], e.inputs)  # ... and the right images
        assert _same_images(out, prov["outputs"], e.outputs)
        if e.inputs:
            assert task.source_image == prov["inputs"][0]["path"]
        assert set(prov["posts"]) == e.posts
        assert set(prov) >= {"posts", "root", "thread", "relevance", "stages", "model"}
        assert prov["stages"]["relevance"] == "relevance@1" and prov["stages"]["prompt"]
        assert prov["root"] in prov["thread"] and prov["relevance"]
    assert not set(truth.discard_prompts) & {t.brief for t in tasks}
    analysis = _read(out / "analysis.jsonl")
    assert sorted(a["prompt"] for a in analysis) == sorted(
        e.prompt for e in truth.expected if e.quality == "analysis")
    # splits: edits and screenshots have inputs
    assert len(i2i) == 10 + 6 and len(t2i) == len(bench) - 16
    st = report["stages"]
    assert st["posts"] == truth.n_lines - len(truth.malformed_lines)
    assert st["malformed"] == len(truth.malformed_lines) == len(report["errors"])
    assert st["benchmark"] == len(bench) and st["analysis"] == 6 and st["discard"] == 4
    assert st["samples"] == st["benchmark"] + st["analysis"] + st["discard"]
    assert st["posts"] > st["keyword"] > st["relevant"] >= st["trees"] > 0
    # the repost collapsed into the first thread; the too-early keyword did not count
    assert st["trees"] == 15 + 10 + 5 + 5 + 4 + 6 + 6 + 4
    assert any("does not lie inside" in p for p in report["problems"])
    # feedback: failure keywords tallied over benchmark and analysis samples
    assert report["failures"]["yellow tint"] == 10
    assert report["failures"]["identity drift"] == 5
    assert report["failures"]["misspelled text"] == 5
    assert report["failures"]["flat shadows"] == 15
    assert "good lighting" not in report["failures"]
    assert set(report["failure_families"]) == {"colour", "identity", "text"}
    colour = report["shift_metrics"]["colour"]
    assert colour["metric"] == "color_shift" and colour["tasks"] == 16
    assert colour["applicable"] >= 1 and colour["mean"] is not None
    assert report["shift_metrics"]["text"]["metric"] == "text_rendering"
    assert (out / "failures.png").is_file()
    assert report["calls"]["replayed"]["extract"] == 0
    # a second run pays for nothing and writes the same suites
    before = correct_llm.calls
    suites = [(out / f).read_bytes() for f in ("suite.t2i.jsonl", "suite.i2i.jsonl")]
    assert main(_args(posts, out, correct_llm)) == 1
    assert correct_llm.calls == before
    assert [(out / f).read_bytes() for f in ("suite.t2i.jsonl", "suite.i2i.jsonl")] == suites


def test_max_samples_caps_each_split(
    correct_llm: FakeProvider, export: tuple[Path, Truth], tmp_path: Path
) -> None:
    posts, _ = export
    out = tmp_path / "capped"
    main([*_args(posts, out, correct_llm), "--max-samples", "3", "--no-shift"])
    assert len(_read(out / "suite.t2i.jsonl")) == 3 and len(_read(out / "suite.i2i.jsonl")) == 3
    report = json.loads((out / "report.json").read_text())
    assert report["suites"]["capped"] == {"t2i": 37 - 3, "i2i": 16 - 3}


def test_untrusted_text_only_in_data_blocks(
    correct_llm: FakeProvider, export: tuple[Path, Truth], tmp_path: Path
) -> None:
    posts, _ = export
    main([*_args(posts, tmp_path / "o", correct_llm), "--no-shift"])
    for body in correct_llm.requests:
        system = body["messages"][0]["content"]
        assert "<<<DATA" not in system and "Tried this prompt" not in system
        texts = [p["text"] for p in body["messages"][1]["content"] if p["type"] == "text"]
        for t in texts:
            assert t.startswith("<<<DATA") or "post p0" not in t


@pytest.mark.timeout(600)
def test_sigkill_then_resume_repeats_no_call(
    correct_llm: FakeProvider, export: tuple[Path, Truth], tmp_path: Path
) -> None:
    posts, _ = export
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cmd = [sys.executable, "-m", "judge.cli.main", *_args(posts, tmp_path / "x", correct_llm),
           "--no-shift", "--concurrency", "2"]
    ref = tmp_path / "ref"
    start = correct_llm.calls
    assert subprocess.run([*cmd, "--out", str(ref)], env=env, timeout=500).returncode == 1
    total = correct_llm.calls - start

    out = tmp_path / "killed"
    correct_llm.latency = 0.02
    start = correct_llm.calls
    proc = subprocess.Popen([*cmd, "--out", str(out)], env=env)
    journal = out / "journal" / "events.jsonl"
    while proc.poll() is None:  # kill once the extraction stage has begun
        if journal.exists() and journal.read_text(encoding="utf-8").count("extract@") >= 5:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    recorded = sum(1 for line in journal.read_bytes().split(b"\n") if line.endswith(b"}"))
    assert 0 < recorded < total
    time.sleep(0.3)  # requests the killed process left in flight finish at the fake
    mid = correct_llm.calls
    assert subprocess.run([*cmd, "--out", str(out)], env=env, timeout=500).returncode == 1
    # exactly the calls not yet journalled are made: none that was recorded is paid again
    assert correct_llm.calls - mid == total - recorded
    final = sum(1 for line in journal.read_bytes().split(b"\n") if line.endswith(b"}"))
    assert final == total  # one journal entry per paid call, over both runs
    for name in ("suite.t2i.jsonl", "suite.i2i.jsonl", "analysis.jsonl"):
        assert (out / name).read_bytes() == (ref / name).read_bytes()
