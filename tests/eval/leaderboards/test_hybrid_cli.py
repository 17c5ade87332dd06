"""``judge leaderboard rank HUMAN --judge-votes JUDGE`` and ``judge leaderboard select``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchmarks.hybrid_sim import M, simulate
from eval.leaderboards import Vote, write_votes
from eval.leaderboards.python_api import hybrid_leaderboard
from judge.cli.main import main

NAMES = [f"model-{i}" for i in range(M)]
OUTCOME = {1.0: "a", 0.0: "b", 0.5: "tie"}


def write_files(tmp_path: Path, human_mask=None, seed: int = 0, n_items: int = 1500, batch=False):
    """Judge votes as ComparisonResults (a panel's majority), human votes as a campaign
    export would name them (``PROMPT:A-vs-B``, sides swapped)."""
    rng = np.random.default_rng(seed)
    a, b, y, yhat = simulate(rng, n_items)
    if human_mask is None:
        human_mask = rng.permutation(n_items) < 200
    with open(tmp_path / "judge.jsonl", "w") as fh:
        for i in range(n_items):
            winner = "a" if yhat[i] > 0.5 else "b" if yhat[i] < 0.5 else "tie"
            row = {
                "comparison_id": f"p{i}",
                "status": "scored",
                "models": {"a": NAMES[a[i]], "b": NAMES[b[i]]},
                "criteria": {"preference": {"winner": winner}},
            }
            fh.write(json.dumps({"index": i, "result": row} if batch else row) + "\n")
    human = [
        Vote(
            f"p{i}:{NAMES[b[i]]}-vs-{NAMES[a[i]]}",
            NAMES[b[i]],
            NAMES[a[i]],
            "b" if y[i] else "a",
            "preference",
            "ann-1",
        )
        for i in np.flatnonzero(human_mask)
    ]
    write_votes(human, tmp_path / "human.csv")
    return tmp_path / "human.csv", tmp_path / "judge.jsonl"


def test_hybrid_bt_json_has_todays_fields_and_the_trade(tmp_path, capsys):
    human, judge = write_files(tmp_path)
    args = ["leaderboard", "rank", str(human), "--judge-votes", str(judge), "--method", "bt"]
    assert main([*args, "--json"]) == 0
    (board,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert board["estimator"] == "ppi++" and board["method"] == "bt"
    assert (board["n_human_votes"], board["n_judge_votes"], board["n_labelled"]) == (200, 1500, 200)
    assert board["human_votes_equivalent"] > 200
    assert board["human_votes_saved"] == board["human_votes_equivalent"] - 200
    rows = board["models"]
    assert sorted(r["model"] for r in rows) == NAMES
    assert abs(sum(r["score"] for r in rows) - 100) < 0.05
    assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows)
    for r in rows:
        lo, hi = r["ci95"]
        assert lo < r["score"] < hi
        assert set(r["judge_bias"]) == {"score", "ci95"}
        assert (
            r["human_only"]["rank"] >= 1 and r["judge_only"]["ci95"][0] < r["judge_only"]["score"]
        )
    assert main(args) == 0  # the table: hybrid, human only, judge only, judge bias
    table = capsys.readouterr().out
    assert "hybrid bt leaderboard (ppi++) · criterion 'preference' · 200 human votes" in table
    assert "judge bias" in table.splitlines()[1]


def test_hybrid_winrate_criterion_and_plots(tmp_path, capsys):
    human, judge = write_files(tmp_path, seed=1, batch=True)  # a batch's results lines
    plots = tmp_path / "plots"
    args = [
        "leaderboard",
        "rank",
        str(human),
        "--judge-votes",
        str(judge),
        "--method",
        "winrate",
        "--criterion",
        "preference",
        "--plots",
        str(plots),
        "--json",
    ]
    assert main(args) == 0
    board = json.loads(capsys.readouterr().out)
    assert board["method"] == "winrate" and board["lam"] is None
    assert all(0 <= r["lam"] <= 1 for r in board["models"])
    assert board["plots"] == [str(plots / "hybrid-winrate-preference.png")]
    assert (plots / "hybrid-winrate-preference.png").stat().st_size > 1000


def test_select_then_rank_weighted_by_the_selection(tmp_path, capsys):
    _, judge = write_files(tmp_path)
    selection = tmp_path / "selection.jsonl"
    assert (
        main(
            [
                "leaderboard",
                "select",
                str(judge),
                "--budget",
                "300",
                "--floor",
                "0.05",
                "--seed",
                "3",
                "--out",
                str(selection),
            ]
        )
        == 0
    )
    assert "judged items selected for humans" in capsys.readouterr().out
    rows = [json.loads(line) for line in selection.read_text().splitlines()]
    assert len(rows) == 1500 and min(r["probability"] for r in rows) >= 0.05
    assert abs(sum(r["probability"] for r in rows) - 300) < 1e-3
    chosen = {r["prompt_id"] for r in rows if r["selected"]}
    mask = np.array([f"p{i}" in chosen for i in range(1500)])
    human, judge = write_files(tmp_path, human_mask=mask)
    (board,) = hybrid_leaderboard(human, judge, selection=selection)
    assert board["estimator"] == "ppi++ weighted by selection probabilities"
    assert board["n_labelled"] == len(chosen) and board["notes"] == []
    # a selected item that got no human vote: missing at random, said in a note
    mask[np.flatnonzero(mask)[0]] = False
    human, judge = write_files(tmp_path, human_mask=mask)
    args = [
        "leaderboard",
        "rank",
        str(human),
        "--judge-votes",
        str(judge),
        "--selection",
        str(selection),
        "--json",
    ]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "have no human vote; taken as missing at random" in captured.err
    # a selection drawn from part of the judged items: they are the board's population
    sub = tmp_path / "sub.jsonl"
    sub.write_text("".join(line + "\n" for line in selection.read_text().splitlines()[:1000]))
    (board,) = hybrid_leaderboard(human, judge, selection=sub)
    assert board["n_items"] == 1000
    assert "500 judge votes on items outside the selection file are left out" in board["notes"][0]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--method", "elo"], "hybrid boards support --method bt or winrate"),
        (["--criterion", "alignment"], "no human votes for criterion 'alignment'"),
    ],
)
def test_bad_options_are_named(tmp_path, capsys, extra, message):
    human, judge = write_files(tmp_path)
    assert main(["leaderboard", "rank", str(human), "--judge-votes", str(judge), *extra]) == 2
    assert message in capsys.readouterr().err


def test_votes_that_do_not_pair_and_bad_selections_are_named(tmp_path, capsys):
    human, judge = write_files(tmp_path)
    other = write_votes(
        [Vote(f"q{i}", NAMES[0], NAMES[1], "a", "preference") for i in range(9)],
        tmp_path / "other.csv",
    )
    assert main(["leaderboard", "rank", str(other), "--judge-votes", str(judge)]) == 2
    assert "only 0 items of criterion 'preference' have both" in capsys.readouterr().err
    assert main(["leaderboard", "rank", str(human), "--selection", str(human)]) == 2
    assert "--selection needs --judge-votes" in capsys.readouterr().err
    partial = tmp_path / "partial.jsonl"
    row = {"prompt_id": "p999", "model_a": NAMES[0], "model_b": NAMES[1],
           "criterion": "preference", "probability": 0.5}  # fmt: skip
    partial.write_text(json.dumps(row) + "\n")
    args = ["leaderboard", "rank", str(human), "--judge-votes", str(judge), "--selection"]
    assert main([*args, str(partial)]) == 2
    assert "no judge vote is on an item of the selection file" in capsys.readouterr().err
    partial.write_text('{"prompt_id": "p0", "model_a": "x", "model_b": "y", "criterion": "c"}\n')
    assert main([*args, str(partial)]) == 2
    assert f"{partial}:1: field 'probability' must be a number in (0, 1]" in capsys.readouterr().err
    assert (
        main(
            [
                "leaderboard",
                "select",
                str(judge),
                "--budget",
                "5000",
                "--out",
                str(tmp_path / "s.jsonl"),
            ]
        )
        == 2
    )
    assert "--budget must be between 1 and the 1500 judged items" in capsys.readouterr().err


def test_awkward_votes_are_said_not_hidden():
    from eval.leaderboards.hybrid import build_hybrid_leaderboard, render_hybrid_table

    pairs = [("x", "y"), ("x", "z"), ("y", "z")]
    judge = [Vote(f"p{i}", *pairs[i % 3], "a", "c") for i in range(300)]  # x never loses
    human = [Vote(f"p{i}", *pairs[i % 3], "a" if i % 2 else "b", "c") for i in range(0, 300, 5)]
    board = build_hybrid_leaderboard(human, judge, method="bt")
    assert board["lam"] == 0.0  # the judge alone has no finite board: the humans' it is
    assert "no judge-only board: a model never lost (or never won)" in board["notes"][0]
    assert all(r["judge_only"] is None for r in board["models"])
    apart = [Vote(f"p{i}", "x", "y", "ab"[i % 2], "c") for i in range(50)]
    apart += [Vote(f"q{i}", "u", "v", "ab"[i % 2], "c") for i in range(50)]
    with pytest.raises(ValueError, match="the pairs compared do not connect all the models"):
        build_hybrid_leaderboard(apart[::5], apart, method="bt")
    judge = [Vote(f"p{i}", "x", "y", "a" if i % 3 else "b", "c") for i in range(60)]
    judge += [Vote("r1", "x", "w", "a", "c"), Vote("r2", "y", "w", "b", "c")]
    human = [*judge[:60:4], Vote("r1", "x", "w", "b", "c")]
    board = build_hybrid_leaderboard(human, judge, method="winrate")
    assert "fewer than 10 human-labelled items have unreliable intervals" in board["notes"][0]
    assert "w (1)" in board["notes"][0]
    w = next(r for r in board["models"] if r["model"] == "w")
    assert (w["rank"], w["score"], w["human_only"]) == (None, None, None)
    assert "   -  w " in render_hybrid_table(board)
