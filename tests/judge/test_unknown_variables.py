"""A misspelt ``JUDGE_*`` variable is named at start, with the nearest known name, once per
process (issue 48, item 18): ``JUDGE_MODLE`` and ``JUDGE_SERVE_PROT`` used to be ignored
without a word. Every name a settings model reads (old names too) and the few read by name
elsewhere are known. And only ``mock/judge`` runs the mock model: ``mock/<anything>`` used to
run it too, so a typo of a real provider's prefix could never be noticed."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from api.configuration import known_variables, reference_sections
from judge.cli.main import main
from judge.config import JudgeSettings
from judge.config_page import variables
from judge.env_check import unknown_variables, warn_unknown_variables
from judge.llm import mock

REPO = Path(__file__).resolve().parents[2]


def test_the_nearest_known_name_is_suggested() -> None:
    environ = {"JUDGE_MODLE": "x", "JUDGE_SERVE_PROT": "1", "JUDGE_MODEL": "m", "PATH": "/bin",
               "judge_home": "/tmp/h", "JUDGE_ZZZZZZZZ": "1"}  # fmt: skip
    found = unknown_variables(known_variables(), environ)
    assert found == [("JUDGE_MODLE", "JUDGE_MODEL"), ("JUDGE_SERVE_PROT", "JUDGE_SERVE_PORT"),
                     ("JUDGE_ZZZZZZZZ", None)]  # fmt: skip


def test_every_settings_name_old_names_and_names_read_elsewhere_are_known() -> None:
    known = known_variables()
    for name, _model in variables(reference_sections()):
        assert name in known
    elsewhere = ("JUDGE_HOME", "JUDGE_CACHE_DIR", "JUDGE_PORT", "JUDGE_ADMIN_KEY",
                 "JUDGE_SERVICE_KEY", "JUDGE_SERVE_INLINE_WORKERS", "JUDGE_MEMORY_DIR")
    for name in elsewhere:
        assert name in known, name


def test_the_warning_is_logged_once_per_process(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from judge import env_check

    monkeypatch.setattr(env_check, "_warned", False)
    monkeypatch.setenv("JUDGE_MODLE", "mock/judge")
    with caplog.at_level(logging.WARNING):
        warn_unknown_variables(known_variables)
        warn_unknown_variables(known_variables)
    said = [r.getMessage() for r in caplog.records if "JUDGE_MODLE" in r.getMessage()]
    assert len(said) == 1, said
    assert "did you mean JUDGE_MODEL?" in said[0], said


def _judge(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    environ.update(PYTHONPATH=str(REPO), **env)
    return subprocess.run(
        [sys.executable, "-m", "judge.cli.main", *args],
        env=environ, capture_output=True, text=True, timeout=300, cwd=REPO,
    )  # fmt: skip


def test_the_command_line_warns_at_start_and_runs() -> None:
    cache = os.environ.get("JUDGE_CACHE_DIR", "/tmp")
    done = _judge(["skills"], JUDGE_MODLE="mock/judge", JUDGE_SERVE_PROT="9000",
                  JUDGE_CACHE_DIR=cache, JUDGE_PORT="1")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("JUDGE_MODLE is not a variable the judge reads") == 1, done.stderr
    assert "did you mean JUDGE_MODEL?" in done.stderr
    assert "JUDGE_SERVE_PROT is not a variable the judge reads; did you mean JUDGE_SERVE_PORT?" in (
        done.stderr
    )
    assert "JUDGE_CACHE_DIR is not" not in done.stderr
    assert "JUDGE_PORT is not" not in done.stderr  # an old name: known (it warns as renamed)


def test_only_mock_judge_is_the_mock() -> None:
    assert mock.is_mock("mock/judge")
    assert not mock.is_mock("mock/gpt-4o")
    with pytest.raises(ValidationError, match=r"only mock/judge is the mock model"):
        JudgeSettings(model="mock/jugde")
    with pytest.raises(ValidationError, match=r"mock/x.*only mock/judge"):
        JudgeSettings(panel=["mock/judge", "mock/x"])
    assert JudgeSettings(model="mock/judge").models() == ["mock/judge"]


def test_the_command_line_refuses_another_mock_name(capsys: pytest.CaptureFixture[str]) -> None:
    examples = REPO / "examples" / "co_106" / "submission.json"
    assert main(["score", str(examples), "--model", "mock/other"]) == 2
    err = capsys.readouterr().err
    assert "--model 'mock/other'" in err and "only mock/judge is the mock model" in err, err
