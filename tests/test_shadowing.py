"""A user's ``eval.py``, ``api.py``, ``memory.py`` or ``skills.py`` beside their script does not
stand in for the project's packages of those names (issue 38, item 5).

Before, ``judge.leaderboard`` in such a folder failed with the user's module in place of
``eval``. ``import judge`` binds the four packages to their own files first
(:mod:`judge.packages`); a module of one of those names imported from elsewhere *before* judge
is named in a clear ``ImportError``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NAMES = ("eval", "api", "memory", "skills")
SCRIPT = """
import judge
votes = [{"prompt_id": "p1", "model_a": "x", "model_b": "y", "winner": "a",
          "criterion": "preference"}]
print(judge.leaderboard(votes, bootstrap=0)[0]["models"][0]["model"])
print(judge.score("a red cube", [], backend="local").status)
"""


def _run(folder: Path, script: str) -> subprocess.CompletedProcess[str]:
    for name in NAMES:
        (folder / f"{name}.py").write_text(f"raise ImportError('the user module {name}.py')\n")
    (folder / "script.py").write_text(script)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "script.py"], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_modules_beside_the_script_do_not_shadow_the_packages(tmp_path: Path) -> None:
    done = _run(tmp_path, SCRIPT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["x", "partial"]


def test_a_module_imported_before_judge_is_named(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "memory.py").write_text("VALUE = 1\n")
    script = "import sys\nsys.path.insert(0, 'mine')\nimport memory\nimport judge\n"
    done = _run(tmp_path, script)
    assert done.returncode == 1
    assert "a module named 'memory'" in done.stderr and "rename your memory.py" in done.stderr
