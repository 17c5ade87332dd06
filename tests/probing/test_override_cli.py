"""``judge probe override``: people correct image verdicts of a probe run in a folder — set,
clear, list; bad addresses and files named; concurrent writers all land."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from judge.cli.main import main
from tests.probing.test_cli import probe

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def run(env: str, tmp_path: Path) -> Path:
    """A finished one-node probe (two inputs, two images each; the renderer fails them all)."""
    out = tmp_path / "run"
    args = ["--topic", "t", "--backend", "builtin/renderer", "--no-localise"]
    assert probe(env, out, *args, "--depth", "1", "--inputs", "2", "--images", "2") == 0
    return out


def override(out: Path, *args: str) -> int:
    return main(["probe", "override", "--out", str(out), *args])


def tree(out: Path) -> dict:
    return json.loads((out / "tree.json").read_text(encoding="utf-8"))


def test_set_list_and_clear_update_the_finished_tree(run: Path, capsys) -> None:
    before = tree(run)
    assert before["status"] == "done" and before["root"]["tests"][1]["verdicts"] == [False, False]
    bugs = before["metrics"]["bugs"]
    for image in ("0", "1"):
        args = ("--node", "n0", "--test", "1", "--image", image, "--verdict", "pass")
        assert override(run, *args, "--who", "ana", "--note", "the cat is there") == 0
    assert "n0/1/1: override set to pass (2 in this run; tree.json updated)" in (
        capsys.readouterr().out
    )
    after = tree(run)
    assert after["root"]["tests"][1]["verdicts"] == [True, True]
    assert after["root"]["tests"][1]["judge_verdicts"] == [False, False]
    assert after["metrics"]["bugs"] == bugs - 1
    assert after["metrics"]["agreement"] == {
        "n_overrides": 2, "n_compared": 2, "agree": 0, "rate": 0.0
    }  # fmt: skip

    assert override(run, "--list") == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed["n0/1/0"]["who"] == "ana" and listed["n0/1/0"]["note"] == "the cat is there"
    assert listed["n0/1/0"]["verdict"] is True and listed["n0/1/0"]["when"]

    assert override(run, "--node", "n0", "--test", "1", "--image", "0", "--clear") == 0
    assert tree(run)["root"]["tests"][1]["verdicts"] == [False, True]
    assert set(json.loads((run / "overrides.json").read_text())) == {"n0/1/1"}


def test_a_resumed_run_keeps_the_overrides(run: Path, env: str) -> None:
    args = ("--node", "n0", "--test", "0", "--image", "1", "--verdict", "pass", "--who", "bo")
    assert override(run, *args) == 0
    assert probe(env, run) == 0  # resume: the run re-exports with the file's overrides
    assert tree(run)["root"]["tests"][0]["verdicts"] == [False, True]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--node", "n9", "--test", "0", "--image", "0", "--verdict", "pass", "--who", "a"],
         "node 'n9' is not in this probe's tree"),
        (["--node", "n0", "--test", "5", "--image", "0", "--verdict", "pass", "--who", "a"],
         "test 5 does not exist"),
        (["--node", "n0", "--test", "0", "--image", "2", "--verdict", "pass", "--who", "a"],
         "has 2 labelled images, not 2"),
        (["--node", "n0", "--test", "0", "--verdict", "pass", "--who", "a"], "--image required"),
        (["--node", "n0", "--test", "0", "--image", "0", "--who", "a"], "--verdict pass|fail"),
        (["--node", "n0", "--test", "0", "--image", "0", "--verdict", "fail", "--who", ""],
         "--who: String should have at least 1 character"),
        (["--node", "n0", "--test", "0", "--image", "0", "--verdict", "fail", "--who", "a",
          "--note", "x" * 2001], "--note: String should have at most 2000 characters"),
        (["--node", "n0", "--test", "0", "--image", "0", "--clear"], "has no override to clear"),
    ],
)  # fmt: skip
def test_bad_overrides_exit_2_naming_the_problem(run: Path, capsys, args, message) -> None:
    before = (run / "tree.json").read_bytes()
    assert override(run, *args) == 2
    assert message in capsys.readouterr().err
    assert (run / "tree.json").read_bytes() == before  # nothing stored is touched


def test_missing_or_damaged_files_are_named(run: Path, tmp_path: Path, capsys) -> None:
    assert override(tmp_path / "nowhere", "--list") == 2
    assert "tree.json does not exist; run `judge probe run --out" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # argparse: an unknown verdict word
        override(run, "--node", "n0", "--test", "0", "--image", "0", "--verdict", "maybe")
    capsys.readouterr()
    (run / "overrides.json").write_text("{not json")
    args = ("--node", "n0", "--test", "0", "--image", "0", "--verdict", "pass", "--who", "a")
    assert override(run, *args) == 2
    assert "overrides.json is not readable overrides" in capsys.readouterr().err
    assert (run / "overrides.json").read_text() == "{not json"  # left for the person to fix


def test_override_starts_without_the_judge_stack(run: Path) -> None:
    """The verb loads the tree model, not litellm, LangGraph or the runner: four people
    correcting at once on a busy machine each pay a start of well under a second, not the
    whole stack's few seconds."""
    code = (
        "import sys; from judge.cli.main import main; "
        f"rc = main(['probe', 'override', '--out', {str(run)!r}, '--node', 'n0', '--test', '0', "
        "'--image', '0', '--verdict', 'pass', '--who', 'x']); "
        "heavy = {'litellm', 'langgraph', 'torch', 'eval.probing.runner'}; "
        "heavy = sorted(heavy & set(sys.modules)); "
        "print(rc, heavy)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert done.stdout.strip().splitlines()[-1] == "0 []", done.stderr


@pytest.mark.slow
def test_concurrent_writers_all_land(run: Path) -> None:
    """Four processes each override a different image at once: none is lost."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "judge.cli.main", "probe", "override", "--out", str(run),
             "--node", "n0", "--test", str(t), "--image", str(i), "--verdict", "pass",
             "--who", f"p{t}{i}"],
            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        for t in (0, 1) for i in (0, 1)
    ]  # fmt: skip
    for p in procs:
        assert p.wait(timeout=100) == 0, p.stderr.read() if p.stderr else ""
    assert set(json.loads((run / "overrides.json").read_text())) == {
        "n0/0/0", "n0/0/1", "n0/1/0", "n0/1/1"
    }  # fmt: skip
    assert all(t["verdicts"] == [True, True] for t in tree(run)["root"]["tests"])
