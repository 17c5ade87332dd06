"""Corrupt run folders give a clear error naming the file, exit code 2 and no traceback
(issue 22, finding 15): a truncated or random provider-batch ``journal.sqlite``, a truncated
``study.json``, and ``events.jsonl`` replaced by a folder. The run is ``judge study run
--provider-batch`` against the fake provider; each case corrupts a copy of its folder."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from judge.cli.main import main
from judge.llm.batch import EXIT_BATCH_PENDING
from tests.fakes.provider import FakeProvider
from tests.studies.runner_helpers import copy_suite, script_prompter, study_file, subset


@pytest.fixture(autouse=True)
def _image_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_IMAGES_KEY", "fake-key")


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _random(path: Path) -> None:
    path.write_bytes(os.urandom(max(path.stat().st_size, 4096)))


def _folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _only(out: Path, name: str) -> Path:
    found = sorted(out.rglob(name))
    assert len(found) == 1, found
    return found[0]


CASES: dict[str, tuple[str, Callable[[Path], None]]] = {
    "truncated-batch-journal": ("journal.sqlite", _truncate),
    "random-batch-journal": ("journal.sqlite", _random),
    "truncated-study-json": ("study.json", _truncate),
    "events-jsonl-is-a-folder": ("events.jsonl", _folder),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_corrupt_run_folder_is_named_with_exit_2(
    provider: FakeProvider, tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    tasks = subset(tmp_path, copy_suite(tmp_path), ("oe_1",))
    script_prompter(provider, tasks, tmp_path)
    study = study_file(tmp_path, provider.base_url, tasks="small.jsonl")
    out = tmp_path / "out"
    args = ["study", "run", str(study), "--out", str(out), "--no-progress", "--provider-batch"]
    assert main(args) == EXIT_BATCH_PENDING
    capsys.readouterr()
    name, corrupt = CASES[case]
    target = _only(out, name)
    for wal in target.parent.glob(name + "-*"):  # sqlite's -wal/-shm side files
        wal.unlink() if wal.is_file() else shutil.rmtree(wal)
    corrupt(target)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert str(target) in err, err
    assert "Traceback" not in err
