"""Votes files: CSV, JSONL, ComparisonResults; errors name file:line and field (CLI exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.leaderboards import Vote, VotesError, read_votes, write_votes
from judge.cli.main import main

HEADER = "prompt_id,model_a,model_b,winner,criterion,annotator\n"


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_csv_and_jsonl_round_trip(tmp_path):
    src = write(tmp_path / "v.csv", HEADER + "p1,x,y,A,pref,r1\np2, y ,x,tie,pref,\n")
    votes = read_votes(src)
    assert votes == [
        Vote("p1", "x", "y", "a", "pref", "r1"),
        Vote("p2", "y", "x", "tie", "pref", None),
    ]
    for name in ("out.jsonl", "out.csv"):
        assert read_votes(write_votes(votes, tmp_path / name)) == votes
    first = json.loads((tmp_path / "out.jsonl").read_text().splitlines()[1])
    assert "annotator" not in first  # absent optional fields are left out


def test_comparison_results_become_votes(tmp_path):
    rows = [
        {
            "comparison_id": "cmp-1",
            "status": "scored",
            "models": {"a": "flux", "b": "sd3"},
            "criteria": {
                "preference": {"winner": "a", "position_consistent": True},
                "coherence": {"winner": "tie", "position_consistent": False},
                "alignment": {"winner": None, "reason": "judge failed"},
            },
        },
        {
            "comparison_id": "cmp-2",
            "prompt_id": "p9",
            "models": {"a": "sd3", "b": "flux"},
            "criteria": {"preference": {"winner": "b"}},
        },
        {
            "comparison_id": "cmp-3",
            "status": "blocked",
            "models": {"a": "x", "b": "y"},
            "criteria": {},
        },
    ]
    path = write(tmp_path / "results.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n")
    votes = read_votes(path)
    assert [(v.prompt_id, v.criterion, v.winner_model) for v in votes] == [
        ("cmp-1", "preference", "flux"),
        ("cmp-1", "coherence", None),
        ("p9", "preference", "flux"),
    ]


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        (
            "bad.csv",
            HEADER + "p1,x,y,a,pref,\np2,x,y,left,pref,\n",
            r"bad.csv:3: field 'winner' has unknown value 'left'",
        ),
        (
            "same.csv",
            HEADER + "p1,x,x,a,pref,\n",
            r"same.csv:2: field 'model_b': model 'x' is named on both sides",
        ),
        (
            "cols.csv",
            "prompt_id,model_a,model_b,criterion\np1,x,y,pref\n",
            r"cols.csv:1: missing column 'winner'",
        ),
        (
            "bad.jsonl",
            '{"prompt_id": "p", "model_a": "x", "model_b": "y", "winner": "a", '
            '"criterion": "c"}\n'
            '{"prompt_id": "p", "model_a": "x", "model_b": "y", "criterion": "c"}\n',
            r"bad.jsonl:2: field 'winner' is missing",
        ),
        (
            "cmp.jsonl",
            '{"comparison_id": "c1", "models": {"a": "x", "b": "x"}, '
            '"criteria": {"preference": {"winner": "a"}}}\n',
            r"cmp.jsonl:1 \(criteria.preference\): field 'model_b': model 'x' is named on both",
        ),
        ("junk.jsonl", "{not json\n", r"junk.jsonl:1: not valid JSON"),
    ],
)
def test_bad_votes_exit_2_naming_file_line_field(tmp_path, capsys, name, text, expected):
    path = write(tmp_path / name, text)
    with pytest.raises(VotesError, match=expected):
        read_votes(path)
    assert main(["leaderboard", "rank", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("judge leaderboard rank: ")
    assert str(tmp_path) in err


def test_missing_and_empty_files(tmp_path, capsys):
    assert main(["leaderboard", "rank", str(tmp_path / "nope.csv")]) == 2
    assert "no such votes file" in capsys.readouterr().err
    assert main(["leaderboard", "rank", str(write(tmp_path / "e.csv", HEADER))]) == 2
    assert "no votes found" in capsys.readouterr().err
    rows = [{"prompt_id": f"p{i}", "model_a": "x", "model_b": "y", "winner": "a",
             "criterion": "c", "excluded": True} for i in range(22)]  # fmt: skip
    gone = tmp_path / "all-excluded.jsonl"
    gone.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["leaderboard", "rank", str(gone)]) == 2
    assert "all 22 rows are marked excluded" in capsys.readouterr().err


def test_suffixless_file_is_sniffed(tmp_path):
    path = write(
        tmp_path / "votes",
        '{"prompt_id": "p", "model_a": "x", "model_b": "y", "winner": "b", "criterion": "c"}\n',
    )
    assert read_votes(path)[0].winner_model == "y"


def test_votes_convert_cli(tmp_path, capsys):
    src = write(
        tmp_path / "r.jsonl",
        json.dumps(
            {
                "comparison_id": "c1",
                "models": {"a": "x", "b": "y"},
                "criteria": {"preference": {"winner": "b"}},
            }
        )
        + "\n",
    )
    out = tmp_path / "votes.csv"
    assert main(["leaderboard", "votes", "convert", str(src), "--out", str(out)]) == 0
    assert "1 votes" in capsys.readouterr().out
    assert out.read_text().splitlines() == [
        "prompt_id,model_a,model_b,winner,criterion,annotator",
        "c1,x,y,b,preference,",
    ]
    assert (
        main(
            ["leaderboard", "votes", "convert", str(tmp_path / "missing.jsonl"), "--out", str(out)]
        )
        == 2
    )


def test_jsonl_error_on_a_later_line_and_non_objects(tmp_path):
    good = '{"prompt_id": "p", "model_a": "x", "model_b": "y", "winner": "a", "criterion": "c"}'
    path = write(tmp_path / "v.jsonl", f"{good}\n\n{good}\n{good},\n")
    with pytest.raises(VotesError, match=r"v.jsonl:4: not valid JSON"):
        read_votes(path)
    write(path, f"{good}\n[1, 2]\n")
    with pytest.raises(VotesError, match=r"v.jsonl:2: expected a JSON object"):
        read_votes(path)
    write(path, good.replace('"a"', '" a "').replace('"y"', '"y "') + "\n")
    assert read_votes(path) == [Vote("p", "x", "y", "a", "c")]  # stray spaces trimmed
