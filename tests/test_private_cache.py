"""Every test runs on a private cache (issue 22): the session's own ``JUDGE_CACHE_DIR``,
never the user's ``~/.cache/t2i-judge``, and subprocesses started by tests inherit it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from skills.local.feature_cache import cache_dir

REPO = Path(__file__).resolve().parents[1]


def test_the_cache_is_the_sessions_own(
    private_cache: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    assert os.environ["JUDGE_CACHE_DIR"] == str(private_cache)
    assert cache_dir() == private_cache
    assert private_cache.is_relative_to(tmp_path_factory.getbasetemp())
    assert not private_cache.is_relative_to(Path.home() / ".cache")


def test_subprocesses_inherit_it(private_cache: Path) -> None:
    code = "from skills.local.feature_cache import cache_dir; print(cache_dir())"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(private_cache)
