"""Selection in rounds (eval.leaderboards.rounds): the second round goes where the first
round's hybrid intervals overlap, and the rounds combine into one unbiased estimate.

Simulation (benchmarks/hybrid_sim.py): 4000 judged items, two rounds of an expected 150
human labels each; round 2's probabilities come from the hybrid board fitted on round 1.
Over 80 seeds, the combined board (each labelled item weighted by
``r = sum_k w_k drawn_k / q_k``) covers the true scores at 0.92–0.98 (480 intervals, Monte
Carlo error about 1 point), and round 2 puts more probability on the items of the pairs
round 1 left unresolved than round 1 did.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks.hybrid import write_example
from benchmarks.hybrid_sim import M, simulate, true_scores
from eval.leaderboards.contested import pair_unresolved, unresolved_from_fit
from eval.leaderboards.hybrid_bt import fit_hybrid_bt
from eval.leaderboards.python_api import hybrid_leaderboard
from eval.leaderboards.rounds import inverse_weight
from eval.leaderboards.selection import selection_probabilities
from judge.cli.main import main

RUNS, N, B, Z = 80, 4000, 150, 1.959964


@pytest.mark.slow
def test_two_rounds_combine_with_coverage_and_round_two_goes_to_open_pairs():
    truth = true_scores()
    hits, shift = [], []
    for seed in range(RUNS):
        rng = np.random.default_rng(seed)
        a, b, y, yhat = simulate(rng, N)
        q1 = selection_probabilities(
            yhat, B, unresolved=pair_unresolved(M, a, b, yhat, widen=np.sqrt(N / B))
        )
        d1 = rng.random(N) < q1
        first = fit_hybrid_bt(M, a, b, np.where(d1, y, np.nan), yhat, pi=q1)
        open_ = unresolved_from_fit(first, a, b)
        q2 = selection_probabilities(yhat, B, unresolved=open_)
        d2 = rng.random(N) < q2
        r = np.array([inverse_weight([(q1[i], d1[i], B), (q2[i], d2[i], B)]) for i in range(N)])
        lab = r > 0
        pi = np.where(lab, 1 / np.where(lab, r, 1), 1.0)
        fit = fit_hybrid_bt(M, a, b, np.where(lab, y, np.nan), yhat, pi=pi)
        hits.append(np.abs(fit.scores - truth) <= Z * fit.se)
        hot = open_ >= 0.5
        if hot.any() and (~hot).any():
            shift.append(q2[hot].sum() / q2.sum() - q1[hot].sum() / q1.sum())
    assert 0.92 <= np.mean(hits) <= 0.98, np.mean(hits)
    assert len(shift) >= RUNS // 2 and np.mean(shift) > 0.02, np.mean(shift)


def test_select_round_two_from_the_cli(tmp_path, capsys):
    write_example(tmp_path / "ex", n_items=1500, n_human=10)
    judge = tmp_path / "ex" / "judge.jsonl"
    first, second = tmp_path / "r1.jsonl", tmp_path / "r2.jsonl"
    assert main(["leaderboard", "select", str(judge), "--budget", "150", "--out", str(first)]) == 0
    write_example(tmp_path / "h1", n_items=1500, selection=first)  # humans answer round 1
    human = tmp_path / "h1" / "human.csv"
    capsys.readouterr()
    args = ["leaderboard", "select", str(judge), "--budget", "150", "--round", "2",
            "--previous", str(first), "--human-votes", str(human),
            "--out", str(second)]  # fmt: skip
    assert main(args) == 0
    assert "round 2:" in capsys.readouterr().out
    rows = [json.loads(line) for line in second.read_text().splitlines()]
    assert all(r["round"] == 2 and len(r["rounds"]) == 2 for r in rows)
    for row in rows:  # the stored probability is one over the combined inverse weight
        w = inverse_weight([(x["probability"], x["selected"], x["budget"]) for x in row["rounds"]])
        assert row["selected"] == (w > 0)
        if w:
            assert abs(row["probability"] - 1 / w) < 1e-12
    write_example(tmp_path / "h2", n_items=1500, selection=second)  # humans answer both rounds
    (board,) = hybrid_leaderboard(tmp_path / "h2" / "human.csv", judge, selection=second)
    assert board["estimator"] == "ppi++ weighted by selection probabilities"
    assert board["n_labelled"] == sum(r["selected"] for r in rows)
    # the flags are checked
    assert main([*args[:7], "--out", str(second)]) == 2
    assert "--round 2 needs --previous FILE and --human-votes VOTES" in capsys.readouterr().err
    bad = [*args[:6], "3", *args[7:]]
    assert main(bad) == 2
    assert "--round 3 needs the selection file of round 2" in capsys.readouterr().err
    assert main(["leaderboard", "select", str(judge), "--budget", "9", "--previous", str(first),
                 "--out", str(second)]) == 2  # fmt: skip
    assert "need --round 2 or more" in capsys.readouterr().err
