"""Own-data meta-evaluation works, or says why (issue 21).

The data set is built from photographs that ship inside scikit-image, each saved at five
quality levels (``examples/own_labels/make_dataset.py``), so the labels are right by
construction. With ``--cv lopo`` the CSV alone scores every target offline (cards for the
labels are written by meta-eval, no hand-written card); without calibration every prediction
line, report.md and the terminal say why nothing was scored, and the exit code is 4.
"""

from __future__ import annotations

import csv
import importlib.util
import json
from pathlib import Path

import pytest

from judge.cli.main import main

pytestmark = pytest.mark.slow  # minutes of work: make test-fast leaves it out (docs/testing.md)

REPO = Path(__file__).resolve().parents[2]
COLUMNS = "image=file,group=source,target.quality=quality"


def labels_builder():
    spec = importlib.util.spec_from_file_location(
        "make_dataset", REPO / "examples" / "own_labels" / "make_dataset.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


@pytest.fixture(scope="module")
def labelled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("own-labels")
    return labels_builder().build(folder, ("astronaut", "coffee", "rocket", "camera", "brick"))


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch) -> None:
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.mark.timeout(900)
def test_a_csv_of_own_labels_is_scored_offline_with_cv(labelled: Path, tmp_path: Path,
                                                       capsys) -> None:
    out = tmp_path / "run"
    code = main(["meta-eval", "--dataset", "csv", "--data", str(labelled), "--columns",
                 COLUMNS, "--cv", "lopo", "--out", str(out), "--n-boot", "200"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    report = json.loads((out / "report.json").read_text())
    quality = report["targets"]["quality"]
    assert quality["n"] == 25 and report["unscored"] == {}
    assert quality["spearman"] > 0.5 and quality["ci95"]["spearman"][0] > 0, quality
    assert (out / "cards" / "label_quality.toml").is_file()
    assert report["config"]["settings"]["skills"] == ["label_quality"]
    assert "Memory built from" in (out / "report.md").read_text()
    assert "spearman" in printed and "n=25" in printed


@pytest.mark.timeout(600)
def test_without_calibration_every_place_says_why_and_the_exit_is_4(
    labelled: Path, tmp_path: Path, capsys
) -> None:
    out = tmp_path / "zero"
    code = main(["meta-eval", "--dataset", "csv", "--data", str(labelled), "--columns",
                 COLUMNS, "--out", str(out), "--limit", "2", "--n-boot", "50"])
    printed = capsys.readouterr().out
    assert code == 4
    # 2 items were judged, none has a prediction: the first line must not say "2/2 scored"
    assert "2/2 items judged (n per target: items with a prediction)" in printed
    assert "n=0" in printed
    why = "no card scores the image dimension 'quality'"
    assert why in printed
    assert why in (out / "report.md").read_text()
    lines = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert len(lines) == 2 and all(why in line["unscored"]["quality"] for line in lines)
    assert "zero-shot" in (out / "report.md").read_text()


@pytest.mark.timeout(900)
def test_jsonl_labels_with_memory_from_another_split(labelled: Path, tmp_path: Path) -> None:
    with open(labelled, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    train, test = tmp_path / "train.jsonl", tmp_path / "test.jsonl"
    for path, keep in ((train, {"astronaut", "coffee", "rocket"}), (test, {"camera", "brick"})):
        lines = [
            {**r, "file": str(labelled.parent / r["file"]), "quality": int(r["quality"])}
            for r in rows
            if r["source"] in keep
        ]
        path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    out = tmp_path / "held-out"
    code = main(["meta-eval", "--dataset", "csv", "--data", str(test), "--columns", COLUMNS,
                 "--memory-from", str(train), "--out", str(out), "--n-boot", "50"])
    assert code == 0
    report = json.loads((out / "report.json").read_text())
    assert report["targets"]["quality"]["n"] == 10, report["unscored"]


def test_labels_off_the_1_to_5_scale_are_refused_with_what_to_do(tmp_path: Path,
                                                                 capsys) -> None:
    (tmp_path / "a.png").write_bytes((REPO / "examples" / "compare" / "a.png").read_bytes())
    table = tmp_path / "labels.csv"
    table.write_text("file,mos\na.png,73\na.png,12\n", encoding="utf-8")
    code = main(["meta-eval", "--dataset", "csv", "--data", str(table), "--columns",
                 "image=file,target.mos=mos", "--cv", "lopo", "--out", str(tmp_path / "o")])
    assert code == 2
    assert "rescale the column" in capsys.readouterr().err
