"""Bradley–Terry, Elo and win-rate leaderboards on synthetic and edge-case votes."""

from __future__ import annotations

import numpy as np
import pytest

from eval.leaderboards import Vote, build_leaderboard, build_leaderboards
from eval.leaderboards.bt import fit_bt
from eval.leaderboards.tally import Tally

from .conftest import draw_votes


def reference_bt(votes: list[Vote], iterations: int = 2000, prior: float = 0.0) -> dict[str, float]:
    """Newman's update written out with plain Python loops (ties: half a win each way);
    ``prior`` adds that many wins and losses against a virtual player of strength 1."""
    models = sorted({v.model_a for v in votes} | {v.model_b for v in votes})
    wins = {(i, j): 0.0 for i in models for j in models}
    for v in votes:
        if v.winner == "a":
            wins[v.model_a, v.model_b] += 1
        elif v.winner == "b":
            wins[v.model_b, v.model_a] += 1
        else:
            wins[v.model_a, v.model_b] += 0.5
            wins[v.model_b, v.model_a] += 0.5
    p = {m: 1.0 for m in models}
    for _ in range(iterations):
        for i in models:  # in place, one model after the other
            num = sum(wins[i, j] * p[j] / (p[i] + p[j]) for j in models if j != i)
            den = sum(wins[j, i] / (p[i] + p[j]) for j in models if j != i)
            num += prior / (p[i] + 1.0)
            den += prior / (p[i] + 1.0)
            p[i] = num / den
        if not prior:  # with a prior the virtual player fixes the scale
            total = sum(p.values())
            p = {m: 100 * x / total for m, x in p.items()}
    total = sum(p.values())
    return {m: 100 * x / total for m, x in p.items()}


def scores(board: dict) -> dict[str, float]:
    return {r["model"]: r["score"] for r in board["models"]}


def test_bt_matches_reference_loop(strengths):
    votes = draw_votes(strengths, 400, seed=3, tie_share=0.15)
    board = build_leaderboard(votes, method="bt", n_boot=0)
    ref = reference_bt(votes)
    assert board["regularised"] is False and board["prior"] == 0.0
    for model, score in scores(board).items():
        assert score == pytest.approx(ref[model], abs=0.01)
    assert sum(scores(board).values()) == pytest.approx(100, abs=0.05)


@pytest.mark.parametrize("method", ["bt", "elo", "winrate"])
def test_ranking_recovered(strengths, method):
    board = build_leaderboard(
        draw_votes(strengths, 3000, seed=1), method=method, n_boot=100, seed=2
    )
    assert [r["model"] for r in board["models"]] == list(strengths)
    assert [r["rank"] for r in board["models"]] == [1, 2, 3, 4]
    top = board["models"][0]
    assert top["rank_probabilities"][0] > 0.9
    assert sum(top["rank_probabilities"]) == pytest.approx(1.0)
    for r in board["models"]:
        assert r["ci95"][0] <= r["score"] <= r["ci95"][1]


def test_bt_recovers_strength_ratios(strengths):
    board = build_leaderboard(draw_votes(strengths, 8000, seed=5), method="bt", n_boot=0)
    s = scores(board)
    truth = {m: 100 * v / sum(strengths.values()) for m, v in strengths.items()}
    for m in strengths:
        assert s[m] == pytest.approx(truth[m], rel=0.15)


def test_cis_narrow_as_votes_grow(strengths):
    def width(n: int) -> float:
        board = build_leaderboard(
            draw_votes(strengths, n, n_prompts=n // 4, seed=7), n_boot=300, seed=1
        )
        return float(np.mean([r["ci95"][1] - r["ci95"][0] for r in board["models"]]))

    small, large = width(200), width(3200)
    assert large < small / 2.5  # ~ 1 / sqrt(16) = 1/4 in theory


def test_record_counts_and_win_matrix():
    votes = [
        Vote("p1", "x", "y", "a", "c"),
        Vote("p2", "y", "x", "a", "c"),
        Vote("p3", "x", "y", "tie", "c"),
        Vote("p4", "x", "z", "a", "c"),
        Vote("p5", "z", "y", "b", "c"),
    ]
    board = build_leaderboard(votes, method="winrate", n_boot=0)
    rec = {r["model"]: (r["wins"], r["losses"], r["ties"], r["games"]) for r in board["models"]}
    assert rec == {"x": (2, 1, 1, 4), "y": (2, 1, 1, 4), "z": (0, 2, 0, 2)}
    assert scores(board) == {"x": 62.5, "y": 62.5, "z": 0.0}
    assert [r["rank"] for r in board["models"]] == [1, 1, 3]
    wm = board["win_matrix"]
    x, y = wm["models"].index("x"), wm["models"].index("y")
    assert wm["rates"][x][y] == 0.5 and wm["rates"][x][x] is None


def test_ties_only_gives_equal_scores():
    votes = [
        Vote(f"p{i}", m1, m2, "tie", "c")
        for i, (m1, m2) in enumerate([("x", "y"), ("y", "z"), ("x", "z")] * 5)
    ]
    for method in ("bt", "winrate", "elo"):
        board = build_leaderboard(votes, method=method, n_boot=50)
        vals = list(scores(board).values())
        assert max(vals) - min(vals) < 1e-6, method
        assert {r["rank"] for r in board["models"]} == {1}
    assert scores(build_leaderboard(votes, n_boot=0)) == pytest.approx(
        {"x": 33.33, "y": 33.33, "z": 33.33}, abs=0.01
    )


def test_all_wins_model_is_regularised_and_said():
    votes = [Vote(f"p{i}", "champ", other, "a", "c") for i, other in enumerate(["x", "y"] * 5)] + [
        Vote("q1", "x", "y", "a", "c"),
        Vote("q2", "x", "y", "b", "c"),
    ]
    board = build_leaderboard(votes, method="bt", n_boot=100)
    assert board["regularised"] is True and board["prior"] == 1.0
    assert any("never lost: champ" in n for n in board["notes"])
    s = scores(board)
    assert np.isfinite(list(s.values())).all()
    ref = reference_bt(votes, iterations=3000, prior=1.0)
    assert s == pytest.approx(ref, abs=0.01)
    assert s["champ"] > s["x"] > 0 and board["models"][0]["model"] == "champ"
    # the plain update has no finite fit here: without a prior the champion runs off
    raw = fit_bt(Tally.from_votes(votes).wins(), prior=0.0, max_iter=300)
    assert raw[Tally.from_votes(votes).models.index("champ")] > 98


def test_forced_prior_applies_even_when_not_needed(strengths):
    votes = draw_votes(strengths, 300, seed=4)
    plain = scores(build_leaderboard(votes, n_boot=0))
    strong = scores(build_leaderboard(votes, n_boot=0, prior=50.0))
    assert strong["alpha"] < plain["alpha"] and strong["delta"] > plain["delta"]


def test_disconnected_groups_and_never_met_pair():
    votes = [
        Vote("p1", "x", "y", "a", "c"),
        Vote("p2", "x", "y", "b", "c"),
        Vote("p3", "x", "y", "a", "c"),
        Vote("p4", "u", "v", "a", "c"),
        Vote("p5", "u", "v", "b", "c"),
    ]
    board = build_leaderboard(votes, method="bt", n_boot=20)
    assert "2 groups that were never compared" in board["notes"][0]
    assert "{u, v}" in board["notes"][0] and "{x, y}" in board["notes"][0]
    groups = {r["model"]: r["group"] for r in board["models"]}
    assert groups["x"] == groups["y"] != groups["u"] == groups["v"]
    assert board["regularised"] is True
    assert scores(board) == pytest.approx(reference_bt(votes, 3000, prior=1.0), abs=0.01)
    wm = board["win_matrix"]
    assert wm["rates"][wm["models"].index("x")][wm["models"].index("u")] is None
    # a pair that never met but is linked through a third model is an ordinary fit
    chain = [
        Vote("a1", "x", "y", "a", "c"),
        Vote("a2", "y", "x", "a", "c"),
        Vote("a3", "y", "z", "a", "c"),
        Vote("a4", "z", "y", "a", "c"),
        Vote("a5", "y", "z", "a", "c"),
    ]
    linked = build_leaderboard(chain, n_boot=0)
    assert linked["notes"] == [] and linked["regularised"] is False
    assert scores(linked)["z"] < scores(linked)["x"]


def test_multiple_criteria_one_board_each(strengths):
    votes = draw_votes(strengths, 600, seed=1, criterion="preference") + draw_votes(
        dict(zip(strengths, reversed(list(strengths.values())), strict=True)),
        600,
        seed=2,
        criterion="alignment",
    )
    boards = build_leaderboards(votes, method="bt", n_boot=0)
    assert [b["criterion"] for b in boards] == ["preference", "alignment"]
    assert boards[0]["models"][0]["model"] == "alpha"
    assert boards[1]["models"][0]["model"] == "delta"
    only = build_leaderboards(votes, criterion="alignment", n_boot=0)
    assert len(only) == 1 and only[0]["n_votes"] == 600
    with pytest.raises(ValueError, match=r"unknown criterion 'style'.*'preference', 'alignment'"):
        build_leaderboards(votes, criterion="style")
    with pytest.raises(ValueError, match="several criteria"):
        build_leaderboard(votes)


def test_seed_makes_bootstrap_reproducible(strengths):
    votes = draw_votes(strengths, 300, seed=1)
    a = build_leaderboard(votes, n_boot=100, seed=5)
    b = build_leaderboard(votes, n_boot=100, seed=5)
    c = build_leaderboard(votes, n_boot=100, seed=6)
    assert a == b
    assert [r["ci95"] for r in a["models"]] != [r["ci95"] for r in c["models"]]
