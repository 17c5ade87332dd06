"""``judge study report DIR --human-ratings FILE``: hybrid mean ratings per prompter and
backend from a rating campaign's export of some of the study's images."""

from __future__ import annotations

import json

from judge.cli.main import main

from .report_data import write_study


def test_human_ratings_give_hybrid_means_per_prompter_and_backend(tmp_path, capsys):
    folder = write_study(tmp_path / "s")
    items = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    scored = [r for r in items if (r.get("summary") or {}).get("subjective_image") is not None]
    ratings = tmp_path / "ratings.jsonl"
    with open(ratings, "w") as fh:
        for n, r in enumerate(scored):
            if n % 2:
                continue
            item = f"{r['task_id']}.{r['prompter']}:{r['prompter']}/{r['backend']}"
            human = round(r["summary"]["subjective_image"] - 0.5)  # the judge is kinder
            fh.write(json.dumps({"item": item, "model": "x", "rating": human}) + "\n")
        fh.write(json.dumps({"item": "elsewhere:b1", "model": "x", "rating": 3}) + "\n")
        fh.write(json.dumps({"item": "o1.m-sk:m-sk/b1", "rating": 1, "excluded": True}) + "\n")
    args = ["study", "report", str(folder), "--no-plots", "--bootstrap", "0"]
    assert main([*args, "--human-ratings", str(ratings), "--json"]) == 0
    hybrid = json.loads(capsys.readouterr().out)["hybrid_ratings"]
    assert hybrid["measure"] == "subjective_image"
    assert (hybrid["n_ratings"], hybrid["unmatched"]) == ((len(scored) + 1) // 2, 1)
    prompters = [r["group"] for r in hybrid["by_prompter"]]
    assert prompters == ["m-sk", "h-sk", "m-nov", "h-nov"]  # the study's known order
    assert sorted(r["group"] for r in hybrid["by_backend"]) == ["b1", "b2"]
    for row in hybrid["by_prompter"] + hybrid["by_backend"]:
        assert row["judge_bias"]["mean"] > 0.2  # measured: the judge rates higher
        assert row["mean"] < row["judge_only"]["mean"]
    assert json.loads((folder / "report.json").read_text())["hybrid_ratings"] == hybrid


def test_ratings_that_name_no_study_image_are_refused(tmp_path, capsys):
    folder = write_study(tmp_path / "s")
    ratings = tmp_path / "ratings.jsonl"
    ratings.write_text(json.dumps({"item": "nope", "rating": 3}) + "\n")
    args = ["study", "report", str(folder), "--no-plots", "--human-ratings", str(ratings)]
    assert main(args) == 2
    assert "no rating names an image of this study" in capsys.readouterr().err
    ratings.write_text(json.dumps({"item": "nope", "rating": "good"}) + "\n")
    assert main(args) == 2
    assert f"{ratings}:1: field 'rating' must be a number" in capsys.readouterr().err
    assert main([*args[:-1], str(tmp_path / "missing.jsonl")]) == 2
    assert "no such ratings file" in capsys.readouterr().err
