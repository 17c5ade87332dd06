"""``judge study run --provider-batch``: prompts and images as usual, the judge's calls through
the fake provider's batch API; the run exits 75 until the batch is collected."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.cli.main import main
from judge.llm.batch import EXIT_BATCH_PENDING
from tests.fakes.provider import FakeProvider
from tests.studies.runner_helpers import (
    calls_by_model,
    copy_suite,
    read_jsonl,
    script_prompter,
    study_file,
    subset,
)


@pytest.fixture(autouse=True)
def _image_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_IMAGES_KEY", "fake-key")


def test_study_judged_through_a_provider_batch(
    provider: FakeProvider, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = subset(tmp_path, copy_suite(tmp_path), ("oe_1", "co_1"))
    script_prompter(provider, tasks, tmp_path)
    study = study_file(tmp_path, provider.base_url, tasks="small.jsonl")
    out = tmp_path / "out"
    args = ["study", "run", str(study), "--out", str(out), "--no-progress", "--provider-batch"]
    assert main(args) == EXIT_BATCH_PENDING
    assert "submitted" in capsys.readouterr().err
    assert not calls_by_model(provider).get("fake-judge")  # no direct judge call
    assert main([*args, "--wait", "--batch-poll-s", "0.01"]) == 0
    lines = read_jsonl(out / "results.jsonl")
    assert len(lines) == len(tasks) * 3
    assert all(line["status"] in ("scored", "partial") for line in lines)
    assert not calls_by_model(provider).get("fake-judge")
    assert provider.batches.stats()["lines_answered"] > 0
    assert main(["study", "run", str(study), "--out", str(out), "--wait"]) == 2


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--provider-batch", "--url", "http://127.0.0.1:9"], "drop --url"),
        (["--provider-batch-fallback", "direct"], "apply to --provider-batch"),
        (["--provider-batch", "--batch-poll-s", "0"], "--batch-poll-s must be positive"),
    ],
)
def test_bad_batch_options_exit_2(
    provider: FakeProvider,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    message: str,
) -> None:
    copy_suite(tmp_path)
    study = study_file(tmp_path, provider.base_url)
    assert main(["study", "run", str(study), "--out", str(tmp_path / "o"), *extra]) == 2
    assert message in capsys.readouterr().err
