"""EvalMuse-40k end to end on a miniature in the dataset card's layout: element labels become
image-side checklist checkpoints, and the judge's verdicts are scored against them (accuracy,
F1, per element type) — recomputed here with scipy/numpy from train_list.json alone."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from eval.datasets import get_dataset
from eval.datasets.public.base import LayoutError
from eval.datasets.public.evalmuse import element_parts
from judge.cli.main import main
from tests.eval.public_sets.miniatures import evalmuse


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return evalmuse(tmp_path_factory.mktemp("evalmuse") / "EvalMuse")


def test_elements_become_image_checkpoints(mini: Path) -> None:
    items = get_dataset("evalmuse").load(mini)
    assert [i.id for i in items] == ["p001", "p002", "p003", "p003#2"]
    first = items[0].submission["task"]["checklist"]
    assert first[0] == {
        "id": "e1",
        "primitive": "hard_constraint",
        "image_check": "The image shows: cat.",
    }
    assert first[1]["primitive"] == "attribute_binding"
    assert items[1].submission["task"]["checklist"][1]["primitive"] == "quantity"
    assert items[2].submission["task"]["checklist"][1]["primitive"] == "text"
    # majority of annotators, ties impossible with 3: [1, 0, 0] → False, [1, 1, 0] → True
    assert items[0].objective == {"image": {"e1": True, "e2": False, "e3": True}}


def test_mock_run_scores_checklist_and_alignment_like_scipy(mini: Path, tmp_path: Path) -> None:
    args = ["meta-eval", "--dataset", "evalmuse", "--data", str(mini), "--out", str(tmp_path)]
    assert main([*args, "--model", "mock/judge", "--no-safety", "--n-boot", "30"]) == 0
    entries = json.loads((mini / "train_list.json").read_text())
    preds = [json.loads(x) for x in (tmp_path / "predictions.jsonl").read_text().splitlines()]
    section = json.loads((tmp_path / "report.json").read_text())["public_set"]
    # alignment: judge vs mean total_score
    judge = [p["scores"]["alignment"] for p in preds]
    human = [np.mean(e["total_score"]) for e in entries]
    fig = section["figures"]["alignment"]
    assert fig["spearman"] == pytest.approx(stats.spearmanr(judge, human).statistic)
    assert fig["kendall"] == pytest.approx(stats.kendalltau(judge, human).statistic)
    # checklist: every element, gold = annotator mean >= 0.5, per element type too
    said, gold, kinds = [], [], []
    for e, p in zip(entries, preds, strict=True):
        for k, (key, votes) in enumerate(e["element_score"].items(), 1):
            said.append(p["objective"]["image"][f"e{k}"])
            gold.append(np.mean(votes) >= 0.5)
            kinds.append(element_parts(key)[1])
    assert None not in said
    checks = section["checklist"]
    assert checks["all"]["n"] == len(gold) == 10
    assert checks["all"]["accuracy"] == pytest.approx(np.mean(np.array(said) == np.array(gold)))
    for kind in set(kinds):
        rows = [(s, g) for s, g, k in zip(said, gold, kinds, strict=True) if k == kind]
        assert checks[f"type: {kind}"]["accuracy"] == pytest.approx(
            np.mean([s == g for s, g in rows])
        )
    assert (
        "### Checklist verdicts against the element labels" in (tmp_path / "report.md").read_text()
    )


def test_the_offline_backend_says_what_it_cannot_check(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["meta-eval", "--dataset", "evalmuse", "--data", str(mini), "--out", str(tmp_path)]
    assert main([*args, "--n-boot", "0", "--limit", "2"]) == 4
    assert "needs a vision-language model" in capsys.readouterr().out
    section = json.loads((tmp_path / "report.json").read_text())["public_set"]
    preds = [json.loads(x) for x in (tmp_path / "predictions.jsonl").read_text().splitlines()]
    checkpoints = [v for p in preds for v in p["objective"]["image"].values()]
    assert checkpoints and set(checkpoints) == {None}  # no verdict without a model: unscored
    assert section["checklist"]["all"]["n"] == 0
    assert section["checklist"]["all"]["unscored"] == len(checkpoints)


@pytest.mark.parametrize(
    ("break_it", "expected"),
    [
        (
            lambda e: e[1].pop("element_score"),
            r'train_list.json: key "1": field "element_score" is missing',
        ),
        (
            lambda e: e[0]["element_score"]["red (color)"].__setitem__(2, "yes"),
            r'key "0" → "element_score" → "red \(color\)" → "2": expected a label 0–1, '
            r'got str "yes"',
        ),
        (
            lambda e: e[2].__setitem__("total_score", [4, 9]),
            r'key "2" → "total_score" → "1": label 9 outside 1–5',
        ),
        (
            lambda e: e[3].__setitem__("img_path", "images/gone.png"),
            r'key "3" → "img_path": image images/gone.png not found',
        ),
    ],
)
def test_a_malformed_copy_names_file_key_and_field(
    mini: Path, tmp_path: Path, break_it, expected: str
) -> None:
    copy = shutil.copytree(mini, tmp_path / "copy")
    entries = json.loads((copy / "train_list.json").read_text())
    break_it(entries)
    (copy / "train_list.json").write_text(json.dumps(entries))
    with pytest.raises(LayoutError, match=expected):
        get_dataset("evalmuse").load(copy)
