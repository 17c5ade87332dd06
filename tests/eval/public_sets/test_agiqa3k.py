"""AGIQA-3K end to end on a miniature in the database's published layout (data.csv and the
images): the mock model and the offline backend, malformed copies naming file, line and column,
and both targets' figures checked against scipy."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from scipy import stats

from eval.datasets import get_dataset
from eval.datasets.public.base import LayoutError
from judge.cli.main import main
from tests.eval.public_sets.miniatures import agiqa3k
from tests.eval.public_sets.test_genai import brute_pairwise


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return agiqa3k(tmp_path_factory.mktemp("agiqa") / "AGIQA-3K")


def test_mock_run_matches_scipy_for_both_targets(mini: Path, tmp_path: Path) -> None:
    args = ["meta-eval", "--dataset", "agiqa-3k", "--data", str(mini), "--out", str(tmp_path)]
    assert main([*args, "--model", "mock/judge", "--no-safety", "--n-boot", "30"]) == 0
    with open(mini / "data.csv", newline="") as fh:
        rows = {r["name"]: r for r in csv.DictReader(fh)}
    preds = {
        p["id"]: p["scores"]
        for p in map(json.loads, (tmp_path / "predictions.jsonl").read_text().splitlines())
    }
    section = json.loads((tmp_path / "report.json").read_text())["public_set"]
    for target, column in (("quality", "mos_quality"), ("alignment", "mos_align")):
        names = sorted(rows)
        judge = [preds[n][target] for n in names]
        human = [float(rows[n][column]) for n in names]
        fig = section["figures"][target]
        assert fig["n"] == 7
        assert fig["spearman"] == pytest.approx(stats.spearmanr(judge, human).statistic)
        assert fig["kendall"] == pytest.approx(stats.kendalltau(judge, human).statistic)
        assert fig["pearson"] == pytest.approx(stats.pearsonr(judge, human).statistic)
        assert fig["pairwise_accuracy"] == pytest.approx(brute_pairwise(judge, human))
    slices = json.loads((tmp_path / "report.json").read_text())["slices"]
    assert set(slices) == {"model", "style"}


def test_the_offline_backend_says_a_model_is_needed(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["meta-eval", "--dataset", "agiqa-3k", "--data", str(mini), "--out", str(tmp_path)]
    assert main([*args, "--n-boot", "0", "--limit", "3"]) == 4
    assert "needs a vision-language model" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("mos_align,std_align", "std_align", r"data.csv:1: missing column 'mos_align'"),
        (
            "statue of a man,,,,",
            "statue of a man,,,,high,",
            r"data.csv:2: column 'mos_quality': expected a finite number, got 'high'",
        ),
        (
            "sd1.5_lowstep_003.jpg",
            "sd1.5_lowstep_999.jpg",
            r"data.csv:8: column 'name': image 'sd1.5_lowstep_999.jpg' not found",
        ),
    ],
)
def test_a_malformed_copy_names_file_line_and_column(
    mini: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    old: str,
    new: str,
    expected: str,
) -> None:
    copy = shutil.copytree(mini, tmp_path / "copy")
    text = (copy / "data.csv").read_text()
    assert old in text
    (copy / "data.csv").write_text(text.replace(old, new, 1))
    with pytest.raises(LayoutError, match=expected):
        get_dataset("agiqa-3k").load(copy)
    args = ["meta-eval", "--dataset", "agiqa-3k", "--data", str(copy), "--out", str(tmp_path / "o")]
    assert main(args) == 2 and "data.csv" in capsys.readouterr().err
