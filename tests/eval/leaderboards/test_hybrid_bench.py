"""``python -m benchmarks.hybrid`` with every option, at small sizes."""

from __future__ import annotations

import json

from benchmarks import hybrid as bench
from eval.leaderboards.selection import select_items, write_selection
from eval.leaderboards.votes import read_votes


def test_votes_then_votes_on_a_selection(tmp_path, capsys):
    folder = tmp_path / "ex"
    args = ["votes", str(folder), "--items", "400", "--human", "60", "--seed", "2"]
    assert bench.main(args) == 0
    info = json.loads(capsys.readouterr().out)
    assert (info["judge_votes"], info["human_votes"]) == (400, 60)
    assert abs(sum(info["true_scores"].values()) - 100) < 0.05
    human = read_votes(folder / "human.csv")
    assert len(human) == 60 and ":" in human[0].prompt_id
    judge = read_votes(folder / "judge.jsonl")
    selection = write_selection(select_items(judge, budget=50, seed=4), tmp_path / "sel.jsonl")
    chosen = sum(json.loads(line)["selected"] for line in selection.read_text().splitlines())
    assert (
        bench.main([*args[:2], "--items", "400", "--seed", "2", "--selection", str(selection)]) == 0
    )
    assert json.loads(capsys.readouterr().out)["human_votes"] == chosen


def test_savings_table_json_and_plot(tmp_path, capsys):
    out = tmp_path / "savings"
    args = ["savings", "--runs", "2", "--items", "1500", "--human", "150", "--seed", "1"]
    assert bench.main([*args, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].split() == ["skill", "agree", "lam", "width", "hyb", "width",
                                            "hum", "equiv", "saved"]  # fmt: skip
    rows = json.loads((out / "savings.json").read_text())
    assert [r["skill"] for r in rows] == list(bench.SKILLS)
    assert rows[0]["agreement"] < rows[-1]["agreement"]
    assert rows[-1]["human_votes_saved"] > rows[0]["human_votes_saved"]
    assert (out / "savings.png").read_bytes()[:4] == b"\x89PNG"


def test_timing_reports_wall_and_cpu(capsys):
    args = ["timing", "--models", "5", "--judge", "3000", "--human", "300", "--seed", "3"]
    assert bench.main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["models"], out["judge_votes"], out["human_votes"]) == (5, 3000, 300)
    for part in ("bt_estimator", "winrate_estimator", "bt_board_from_votes",
                 "winrate_board_from_votes"):  # fmt: skip
        assert set(out[part]) == {"wall_s", "cpu_s"}
    assert bench.main(["timing", "--human", "5", "--judge", "3"]) == 2
    assert "no more human votes than judge votes" in capsys.readouterr().err
