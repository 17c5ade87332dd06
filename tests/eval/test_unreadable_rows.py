"""One bad row does not end a meta-evaluation (issue 38, item 1).

A CSV of own labels with a missing image and a file that is not an image: every row is checked
before anything is scored or built, each bad one is named by its CSV line, left out of the
memory and written unscored with its reason, and the other rows are scored — through the
command line (``--cv lopo`` and ``--memory-from``) and ``judge.meta_eval``.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from eval.metaeval.python_api import meta_eval
from judge.cli.main import main
from tests.eval.test_own_labels import COLUMNS, labels_builder


def with_bad_rows(folder: Path, sources: tuple[str, ...]) -> Path:
    """The example data set of ``sources``, plus two rows whose images cannot be read."""
    labels_builder().build(folder, sources)
    (folder / "broken.png").write_bytes(b"this is not a PNG")
    with open(folder / "labels.csv", "a", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["gone.png", "lost", "3"])
        writer.writerow(["broken.png", "lost", "4"])
    return folder


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch) -> None:
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


def lines_of(folder: Path) -> tuple[int, int]:
    rows = (folder / "labels.csv").read_text().splitlines()
    return rows.index("gone.png,lost,3") + 1, rows.index("broken.png,lost,4") + 1


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_bad_rows_are_named_left_out_and_the_run_goes_on(tmp_path: Path, capsys) -> None:
    data = with_bad_rows(tmp_path / "mine", ("astronaut", "coffee", "rocket", "camera"))
    gone, broken = lines_of(data)
    out = tmp_path / "run"
    code = main(["meta-eval", "--dataset", "csv", "--data", str(data), "--columns", COLUMNS,
                 "--cv", "lopo", "--out", str(out), "--n-boot", "50"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    report = json.loads((out / "report.json").read_text())
    assert report["n_items"] == 22 and report["n_predicted"] == 20
    assert report["targets"]["quality"]["n"] == 20
    assert f"labels.csv line {gone}: image 'gone.png'" in printed
    assert f"labels.csv line {broken}: image 'broken.png'" in printed
    assert len(report["memory_left_out"]) == 2 and len(report["skipped"]) == 2
    rows = (out / "predictions.jsonl").read_text().splitlines()
    preds = {p["id"]: p for p in map(json.loads, rows)}
    assert len(preds) == 22
    assert "cannot read image" in preds["gone.png"]["error"]
    assert preds["broken.png"]["status"] == "skipped" and "scores" not in preds["broken.png"]
    assert report["n_errors"] == 2
    reasons = " ".join(r["reason"] for r in report["unscored"]["quality"])
    assert f"line {gone}" in reasons and f"line {broken}" in reasons
    assert f"line {broken}" in (out / "report.md").read_text()


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_bad_rows_of_the_memory_split_are_left_out_from_python(tmp_path: Path) -> None:
    other = with_bad_rows(tmp_path / "other", ("astronaut", "coffee", "rocket", "camera"))
    scored = labels_builder().build(tmp_path / "scored", ("brick",))
    report = meta_eval(scored, columns=COLUMNS, memory_from=other,
                       out=tmp_path / "run", n_boot=50)
    gone, broken = lines_of(other)
    assert [line.split(": image")[0] for line in report["memory_left_out"]] == [
        f"memory 'csv-image': labels.csv line {gone}",
        f"memory 'csv-image': labels.csv line {broken}",
    ]
    assert report["targets"]["quality"]["n"] == 5 and report["skipped"] == []
