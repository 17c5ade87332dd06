"""The shipped benchmark ``python -m benchmarks.edit_metrics``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import edit_metrics as bench
from skills.metrics import metric_names


def test_cli_verb_reports_per_metric_medians(tmp_path: Path, capsys) -> None:
    out = tmp_path / "bench.json"
    code = bench.main(
        ["--size", "256", "--repeats", "1", "--torch-threads", "1", "--out", str(out)]
    )
    assert code == 0
    report = json.loads(out.read_text())
    assert json.loads(capsys.readouterr().out) == report
    assert report["size"] == 256 and report["repeats"] == 1 and report["torch_threads"] == 1
    for name in [*metric_names(), "prepare", "all", "next_edit_same_source"]:
        assert report["seconds"][name]["wall_median"] >= 0
        assert report["seconds"][name]["cpu_median"] >= 0
    assert report["values"]["text_rendering"] > 0.8  # every metric applies to the bench pair
    assert report["values"]["face_identity"] > 0.9 and report["values"]["color_shift"] > 5
    assert report["target_met"] == (report["total_wall_median"] < report["target_seconds"])


def test_dinov2_option(tmp_path: Path, tiny_dinov2: Path, capsys) -> None:
    code = bench.main(
        [
            "--size",
            "128",
            "--repeats",
            "1",
            "--torch-threads",
            "0",
            "--dinov2",
            str(tiny_dinov2),
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["structure_encoder"] == "dinov2"
    assert report["torch_threads"] == "default"


@pytest.mark.parametrize("bad", [["--size", "8"], ["--repeats", "0"], ["--torch-threads", "-1"]])
def test_bad_options_exit_2(bad: list[str], capsys) -> None:
    assert bench.main(bad) == 2
    assert "benchmarks.edit_metrics:" in capsys.readouterr().err


def test_module_entry_point(capsys) -> None:
    """``python -m benchmarks.edit_metrics`` parses its own options (same ones)."""
    assert bench.main(["--size", "64", "--repeats", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["size"] == 64
