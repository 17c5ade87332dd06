"""``judge meta-eval --dataset votes``: the compare mode against human pairwise votes."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from PIL import Image

from judge.cli.main import main
from tests.modes.test_compare import is_pairwise, prefers_red

COLOURS = {"redmodel": "red", "bluemodel": "blue", "greymodel": "gray"}


def make_votes(folder: Path) -> Path:
    """Three models on four prompts; humans prefer red > blue > grey, with one dissenter."""
    (folder / "img").mkdir(parents=True)
    rows = []
    for p in range(4):
        for model, colour in COLOURS.items():
            Image.new("RGB", (24 + p, 24), colour).save(folder / "img" / f"p{p}-{model}.png")
        for a, b in (
            ("redmodel", "bluemodel"),
            ("bluemodel", "greymodel"),
            ("redmodel", "greymodel"),
        ):
            for rater, winner in (("r1", "a"), ("r2", "a"), ("r3", "b")):
                rows.append(
                    {
                        "prompt_id": f"p{p}",
                        "prompt": f"a kite, take {p}",
                        "image_a": f"img/p{p}-{a}.png",
                        "image_b": f"img/p{p}-{b}.png",
                        "model_a": a,
                        "model_b": b,
                        "winner": winner,
                        "criterion": "preference",
                        "annotator": rater,
                    }
                )
    path = folder / "votes.csv"
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_votes_meta_eval_reports_agreement_and_consistency(tmp_path: Path, provider) -> None:
    provider.on(is_pairwise, prefers_red)  # prefers red, else is biased to the first image
    data = make_votes(tmp_path / "data")
    out = tmp_path / "run"
    args = ["meta-eval", "--dataset", "votes", "--data", str(data.parent), "--out", str(out)]
    flags = ["--model", "openai/fake-judge", "--api-base", provider.base_url, "--api-key", "k"]
    assert main([*args, *flags, "--n-boot", "50"]) == 0
    report = json.loads((out / "report.json").read_text())
    pw = report["pairwise"]
    assert pw["n_human_comparisons"] == 12
    pref = pw["criteria"]["preference"]
    # red-vs-x: both orders pick red = the human majority (a); blue-vs-grey: the fake has no
    # preference, answers "second" in both orders -> a position-inconsistent tie
    assert pref["position_consistency"] == round(8 / 12, 4)
    assert pref["n"] == 12 and pref["accuracy"] == round(8 / 12, 4)
    assert "Pairwise judging" in (out / "report.md").read_text()
    preds = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert all(p["comparison"]["criteria"]["preference"]["winner"] for p in preds)
