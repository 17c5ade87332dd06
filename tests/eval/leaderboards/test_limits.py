"""Votes and options that would exhaust memory or write nonsense are refused with the flag or
the limit named (issue 48, item 12): many models, a non-finite or out-of-range option."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from eval.leaderboards import Vote, write_votes
from eval.leaderboards.resample import BOOT_CELLS, boot_wins
from eval.leaderboards.tally import MAX_MODELS, Tally
from judge.cli.main import main


def many_models(path: Path, n_models: int) -> Path:
    """A small votes file (one vote per pair of neighbours) naming ``n_models`` models."""
    votes = [
        Vote(f"p{i % 50}", f"m{i}", f"m{(i + 1) % n_models}", "a" if i % 2 else "b", "pref")
        for i in range(n_models)
    ]
    write_votes(votes, path)
    return path


def test_more_models_than_the_limit_are_refused_before_any_matrix(tmp_path, capsys):
    votes = many_models(tmp_path / "votes.csv", MAX_MODELS + 1)
    assert main(["leaderboard", "rank", str(votes), "--bootstrap", "0"]) == 2
    err = capsys.readouterr().err
    assert f"{MAX_MODELS + 1} models" in err and f"at most {MAX_MODELS}" in err
    assert "'pref'" in err  # the criterion whose votes are too many
    # the hybrid board and the selection count the same models
    assert main(["leaderboard", "rank", str(votes), "--judge-votes", str(votes)]) == 2
    assert f"at most {MAX_MODELS}" in capsys.readouterr().err
    out = tmp_path / "sel.jsonl"
    assert main(["leaderboard", "select", str(votes), "--budget", "10", "--out", str(out)]) == 2
    assert f"at most {MAX_MODELS}" in capsys.readouterr().err and not out.exists()


def test_the_bootstrap_holds_a_bounded_block_of_win_matrices():
    """(k, M, M) blocks: k shrinks as M grows, so a block stays near BOOT_CELLS cells; the
    resamples are the same whatever the block size."""
    rng = np.random.default_rng(0)
    m = 120
    votes = [
        Vote(f"p{i % 40}", f"m{a}", f"m{(a + 1 + int(rng.integers(m - 1))) % m}", "a", "c")
        for i, a in enumerate(rng.integers(0, m, 3000))
    ]
    tally = Tally.from_votes(votes)
    blocks = list(boot_wins(tally, 500, seed=0))
    assert sum(b.shape[0] for b in blocks) == 500
    assert max(b.size for b in blocks) <= max(BOOT_CELLS, m * m)
    again = np.concatenate(list(boot_wins(tally, 500, seed=0, cells=10**9)))
    assert np.array_equal(np.concatenate(blocks), again)


def judge_votes(path: Path) -> Path:
    votes = [
        Vote(f"p{i}", f"m{i % 5}", f"m{(i + 1) % 5}", "a" if i % 3 else "b", "pref")
        for i in range(3000)
    ]
    write_votes(votes, path)
    return path


@pytest.mark.parametrize(
    ("flag", "value", "says"),
    [
        ("--pair-boost", "nan", "--pair-boost must be a finite number"),
        ("--pair-boost", "inf", "--pair-boost must be a finite number"),
        ("--pair-boost", "-1", "--pair-boost must be between 0 and"),
        ("--pair-boost", "1e300", "--pair-boost must be between 0 and"),
        ("--floor", "nan", "--floor must be a finite number"),
        ("--floor", "0", "--floor must be in (0,"),
        ("--floor", "0.5", "--floor must be in (0,"),
        ("--budget", "0", "--budget must be between 1 and the 3000 judged items"),
        ("--budget", "3001", "--budget must be between 1 and the 3000 judged items"),
    ],
)
def test_every_numeric_selection_option_is_checked(tmp_path, capsys, flag, value, says):
    votes = judge_votes(tmp_path / "judge.csv")
    out = tmp_path / "sel.jsonl"
    args = ["leaderboard", "select", str(votes), "--budget", "300", "--out", str(out)]
    args = [*args, f"{flag}={value}"]
    assert main(args) == 2
    assert says in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("boost", ["0", "2", "1000"])
def test_the_probabilities_sum_to_the_budget_whatever_the_boost(tmp_path, capsys, boost):
    votes = judge_votes(tmp_path / "judge.csv")
    out = tmp_path / "sel.jsonl"
    args = ["leaderboard", "select", str(votes), "--budget", "300", "--out", str(out)]
    assert main([*args, "--pair-boost", boost]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    probs = np.array([r["probability"] for r in rows])
    assert np.all(np.isfinite(probs)) and np.all((probs > 0) & (probs <= 1))
    assert abs(probs.sum() - 300) < 0.01 * 300
    # Poisson sampling: the count is the budget give or take its spread, never everything
    assert sum(r["selected"] for r in rows) < 300 + 5 * np.sqrt(300)


@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_rank_numeric_options_are_checked(tmp_path, capsys, value):
    votes = judge_votes(tmp_path / "judge.csv")
    assert main(["leaderboard", "rank", str(votes), f"--prior={value}"]) == 2
    assert "--prior must be" in capsys.readouterr().err
