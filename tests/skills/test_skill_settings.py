"""The skills' and the data folders' variables go through their settings models
(skills.settings, memory.settings) and keep their behaviour."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.client import Client
from memory.paths import data_home
from skills.local import settings as local
from skills.local.feature_cache import cache_dir
from skills.registry import _env_dirs
from skills.settings import SkillSettings


def test_thresholds_read_the_environment_and_keep_the_default_when_unreadable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("JUDGE_PROFANITY_THRESHOLD", "0.5")
    monkeypatch.setenv("JUDGE_NSFW_THRESHOLD", "")
    settings = SkillSettings()
    assert (settings.profanity_threshold, settings.nsfw_threshold) == (0.5, 0.8)


def test_the_local_switches_keep_their_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_LOCAL_SELECTION", "best")
    monkeypatch.setenv("JUDGE_LOCAL_WEIGHTS", "")
    assert (local.strategy(), local.weighting()) == ("best", "equal")
    monkeypatch.setenv("JUDGE_LOCAL_SELECTION", "median")
    with pytest.raises(ValueError, match=r"JUDGE_LOCAL_SELECTION='median' is unknown"):
        local.strategy()
    monkeypatch.setenv("JUDGE_LOCAL_MEMBERS", "memory, niqe")
    assert local.member_filter() == ("memory", "niqe")


def test_folders_follow_their_variables(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JUDGE_SKILL_DIRS", f"{tmp_path / 'a'}:{tmp_path / 'b'}")
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("JUDGE_HOME", str(tmp_path / "home"))
    assert _env_dirs() == (tmp_path / "a", tmp_path / "b")
    assert cache_dir() == tmp_path / "cache"
    assert data_home() == tmp_path / "home"
    monkeypatch.setenv("JUDGE_CACHE_DIR", "")
    assert cache_dir() == Path.home() / ".cache" / "t2i-judge"


def test_the_client_sends_the_service_key_of_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("JUDGE_SERVICE_KEY", "k-env")
    assert Client("http://127.0.0.1:9").headers == {"Authorization": "Bearer k-env"}
    assert Client("http://127.0.0.1:9", "k-arg").headers == {"Authorization": "Bearer k-arg"}
    monkeypatch.delenv("JUDGE_SERVICE_KEY")
    assert Client("http://127.0.0.1:9").headers == {}
