"""``judge leaderboard`` and ``python -m benchmarks.leaderboard`` with every option."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import leaderboard as leaderboard_bench
from eval.leaderboards import write_votes
from judge.cli.main import main

from .conftest import draw_votes


def boards(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_table_by_default_one_per_criterion(tmp_path, capsys, strengths):
    votes = draw_votes(strengths, 300, seed=1) + draw_votes(
        strengths, 200, seed=2, criterion="alignment"
    )
    path = write_votes(votes, tmp_path / "votes.csv")
    assert main(["leaderboard", "rank", str(path), "--bootstrap", "50"]) == 0
    out = capsys.readouterr().out
    assert "bt leaderboard · criterion 'preference' · 300 votes" in out
    assert "criterion 'alignment' · 200 votes" in out
    assert out.splitlines()[2].split()[:2] == ["1", "alpha"]


def test_json_criterion_method_seed_bootstrap_plots(tmp_path, capsys, strengths):
    votes = draw_votes(strengths, 400, seed=1) + draw_votes(
        strengths, 100, seed=2, criterion="alignment"
    )
    path = write_votes(votes, tmp_path / "votes.jsonl")
    args = [
        "leaderboard",
        "rank",
        str(path),
        "--criterion",
        "preference",
        "--bootstrap",
        "40",
        "--json",
    ]
    for method in ("bt", "elo", "winrate"):
        plots = tmp_path / f"plots-{method}"
        argv = [*args, "--method", method, "--seed", "3", "--plots", str(plots)]
        assert main(argv) == 0
        (board,) = boards(capsys.readouterr().out)
        assert board["method"] == method and board["criterion"] == "preference"
        assert board["n_votes"] == 400 and board["bootstrap"] == 40 and board["seed"] == 3
        first = board["models"][0]
        assert set(first) >= {
            "model",
            "rank",
            "score",
            "ci95",
            "wins",
            "losses",
            "ties",
            "rank_probabilities",
        }
        names = {f"{method}-preference.png", "win-matrix-preference.png"}
        assert {p.name for p in plots.iterdir()} == names
        assert all(Path(n).stat().st_size > 1000 for n in board["plots"])
    # the same seed gives the same intervals, another seed others
    assert main([*args, "--seed", "3"]) == 0
    again = boards(capsys.readouterr().out)[0]
    assert main([*args, "--seed", "4"]) == 0
    other = boards(capsys.readouterr().out)[0]
    assert main([*args, "--seed", "3"]) == 0
    assert boards(capsys.readouterr().out)[0] == again
    assert other["models"] != again["models"]


def test_bootstrap_zero_and_prior(tmp_path, capsys, strengths):
    path = write_votes(draw_votes(strengths, 200, seed=1), tmp_path / "v.csv")
    assert main(["leaderboard", "rank", str(path), "--bootstrap", "0", "--json"]) == 0
    plain = boards(capsys.readouterr().out)[0]
    assert plain["models"][0]["ci95"] is None and "rank_probabilities" not in plain["models"][0]
    assert (
        main(["leaderboard", "rank", str(path), "--bootstrap", "0", "--prior", "30", "--json"]) == 0
    )
    shrunk = boards(capsys.readouterr().out)[0]
    assert shrunk["prior"] == 30 and shrunk["regularised"] is True
    assert shrunk["models"][0]["score"] < plain["models"][0]["score"]
    assert main(["leaderboard", "rank", str(path), "--prior", "-1"]) == 2
    assert "--prior must be a number between 0 and" in capsys.readouterr().err
    assert main(["leaderboard", "rank", str(path), "--bootstrap", "-5"]) == 2


def test_unknown_criterion_names_the_existing_ones(tmp_path, capsys, strengths):
    path = write_votes(draw_votes(strengths, 50, seed=1), tmp_path / "v.csv")
    assert main(["leaderboard", "rank", str(path), "--criterion", "style"]) == 2
    assert "unknown criterion 'style'; the votes have ['preference']" in capsys.readouterr().err


def test_unknown_method_suggests_the_closest(tmp_path, capsys, strengths):
    path = write_votes(draw_votes(strengths, 20, seed=1), tmp_path / "v.csv")
    assert main(["leaderboard", "rank", str(path), "--method", "elp"]) == 2
    err = capsys.readouterr().err
    assert "unknown rating method 'elp'; did you mean 'elo'? available: bt, elo, winrate" in err


def test_several_files_and_notes_on_stderr(tmp_path, capsys):
    a = tmp_path / "a.csv"
    a.write_text("prompt_id,model_a,model_b,winner,criterion\np1,x,y,a,c\np2,x,y,a,c\n")
    b = tmp_path / "b.jsonl"
    b.write_text(
        '{"prompt_id": "p3", "model_a": "u", "model_b": "v", "winner": "tie", "criterion": "c"}\n'
    )
    assert main(["leaderboard", "rank", str(a), str(b), "--bootstrap", "10", "--json"]) == 0
    cap = capsys.readouterr()
    board = boards(cap.out)[0]
    assert board["n_votes"] == 3 and board["models"][0]["model"] == "x"
    assert "never compared" in cap.err and "never lost: x" in cap.err
    assert main(["leaderboard", "rank", str(a), str(b), "--bootstrap", "10"]) == 0
    assert "note: the models form 2 groups" in capsys.readouterr().out


def test_leaderboard_bench_small(tmp_path, capsys):
    out = tmp_path / "synthetic.jsonl"
    argv = [
        "--votes",
        "3000",
        "--models",
        "6",
        "--prompts",
        "100",
        "--bootstrap",
        "50",
        "--seed",
        "2",
        "--out",
        str(out),
        "--json",
    ]
    assert leaderboard_bench.main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["n_votes"] == 3000 and report["n_models"] == 6 and report["bootstrap"] == 50
    assert report["spearman_vs_truth"] > 0.8 and report["total_s"] > 0
    assert len(out.read_text().splitlines()) == 3000
    assert leaderboard_bench.main(argv[:-3]) == 0
    assert "3000 votes, 6 models, 100 prompts, 50 resamples" in capsys.readouterr().out
    assert leaderboard_bench.main(["--models", "1"]) == 2
