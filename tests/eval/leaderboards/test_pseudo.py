"""Pseudo-pairwise votes from pointwise Results (per-judge comparison, majority over judges)."""

from __future__ import annotations

import json

import pytest

from eval.leaderboards import VotesError, read_votes
from eval.leaderboards.pseudo import pseudo_votes, read_results
from judge.cli.main import main


def result(image_rate: float | None, dims: dict[str, float | None], blocked: bool = False) -> dict:
    """A score-mode Result with an objective image rate and subjective image scores."""
    return {
        "submission_id": "s",
        "status": "blocked" if blocked else "scored",
        "subjective": {
            "image": {
                d: ({"score": s} if s is not None else {"score": None, "reason": "failed"})
                for d, s in dims.items()
            }
        },
        "objective": {"image": {"rate": image_rate, "scored": 3, "items": []}},
    }


@pytest.fixture
def rows() -> list[dict]:
    """Three judges score models x, y, z on prompt p1, and x, y on p2."""
    spec = {
        # judge: {model: (image rate, appeal, realism)}
        "j1": {"x": (100.0, 4, 3), "y": (50.0, 3, 3), "z": (50.0, 2, None)},
        "j2": {"x": (80.0, 2, 3), "y": (90.0, 3, 2), "z": (50.0, 2, 1)},
        "j3": {"x": (100.0, 5, 4), "y": (40.0, 3, 5), "z": (60.0, 2, 1)},
    }
    out = []
    for judge, per in spec.items():
        for model, (rate, appeal, realism) in per.items():
            res = result(rate, {"appeal": appeal, "realism": realism})
            out.append({"prompt_id": "p1", "model": model, "judge": judge, "result": res})
    out.append({"prompt_id": "p2", "model": "x", "judge": "j1", "result": result(30.0, {})})
    out.append({"prompt_id": "p2", "model": "y", "judge": "j1", "result": result(30.0, {})})
    return out


def outcomes(votes):
    return {(v.prompt_id, v.model_a, v.model_b): v.winner for v in votes}


def test_objective_rate_majority_over_judges(rows):
    votes = pseudo_votes(rows, metric="objective_image_rate")
    assert outcomes(votes) == {
        ("p1", "x", "y"): "a",  # j1 a, j2 b, j3 a
        ("p1", "x", "z"): "a",  # a, a, a
        ("p1", "y", "z"): "tie",  # j1 tie, j2 a, j3 b: 1-1-1 split
        ("p2", "x", "y"): "tie",  # equal rates, one judge
    }
    assert {v.criterion for v in votes} == {"objective_image_rate"}
    assert votes[0].annotator == "judges=3"


def test_named_dimension_with_an_unscored_judge_abstaining(rows):
    votes = pseudo_votes(rows, metric="image:realism", criterion="realism")
    got = {(v.model_a, v.model_b): (v.winner, v.annotator) for v in votes}
    # j1 left z's realism unscored: it abstains on pairs with z
    assert got[("x", "z")] == ("a", "judges=2")
    assert got[("y", "z")] == ("a", "judges=2")
    assert got[("x", "y")] == ("tie", "judges=3")  # j1 tie, j2 a, j3 b
    assert {v.criterion for v in votes} == {"realism"}
    assert "p2" not in {v.prompt_id for v in votes}  # no realism on p2 at all


def test_subjective_mean_and_flat_scores(rows):
    votes = pseudo_votes(rows, metric="subjective_image_mean")
    # j1: x 3.5 y 3 z 2 ; j2: x 2.5 y 2.5 z 1.5 ; j3: x 4.5 y 4 z 1.5
    assert outcomes(votes)[("p1", "x", "y")] == "a"  # a, tie, a
    flat = [{"prompt_id": "q", "model": m, "score": s} for m, s in [("x", 1), ("y", 2)]]
    assert outcomes(pseudo_votes(flat, metric="score")) == {("q", "x", "y"): "b"}
    with pytest.raises(ValueError, match=r"unknown metric 'rate'.*image:<dimension>"):
        pseudo_votes(flat, metric="rate")


def test_blocked_results_abstain():
    rows = [
        {"prompt_id": "p", "model": "x", "result": result(None, {}, blocked=True)},
        {"prompt_id": "p", "model": "y", "result": result(50.0, {})},
    ]
    assert pseudo_votes(rows, metric="objective_image_rate") == []


def test_cli_pseudo_then_leaderboard(tmp_path, capsys, rows):
    src = tmp_path / "results.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = tmp_path / "votes.csv"
    argv = [
        "leaderboard",
        "votes",
        "pseudo",
        str(src),
        "--metric",
        "image:appeal",
        "--criterion",
        "appeal",
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    assert "3 votes from 11 results" in capsys.readouterr().out
    votes = read_votes(out)
    assert {v.criterion for v in votes} == {"appeal"}
    assert main(["leaderboard", "rank", str(out), "--method", "winrate", "--bootstrap", "0"]) == 0
    assert capsys.readouterr().out.splitlines()[2].split()[:2] == ["1", "x"]
    # a metric nobody scored gives no votes: exit 2 with the reason
    argv[5] = "image:nonexistent"
    assert main(argv) == 2
    assert "no pair of models was scored" in capsys.readouterr().err


def test_bad_results_files(tmp_path, capsys):
    bad = tmp_path / "r.jsonl"
    bad.write_text('{"prompt_id": "p", "model": "x", "score": 1}\n{"prompt_id": "p"}\n')
    with pytest.raises(VotesError, match=r"r.jsonl:2: field 'model' is missing"):
        read_results(bad)
    dup = tmp_path / "d.jsonl"
    dup.write_text('{"prompt_id": "p", "model": "x", "score": 1}\n' * 2)
    with pytest.raises(VotesError, match=r"d.jsonl:2: duplicate of line 1"):
        read_results(dup)
    nores = tmp_path / "n.jsonl"
    nores.write_text('{"prompt_id": "p", "model": "x"}\n')
    assert (
        main(
            [
                "leaderboard",
                "votes",
                "pseudo",
                str(nores),
                "--metric",
                "score",
                "--out",
                str(tmp_path / "o.jsonl"),
            ]
        )
        == 2
    )
    assert "n.jsonl:1: field 'result' (or a flat 'score') is missing" in capsys.readouterr().err
