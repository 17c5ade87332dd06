"""The load benchmark command runs end to end, as docs/throughput.md shows it (tiny settings;
numbers are not asserted)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.load import main, render
from tests.docs.pages import shell_commands


def test_the_documented_command_reports_the_default_configuration_first_and_tuned_runs_labelled(
    tmp_path: Path, capsys
) -> None:
    (argv,) = shell_commands("throughput.md")
    assert argv[:3] == ["python", "-m", "benchmarks.load"]
    out = tmp_path / "report.json"
    assert main([*argv[3:], "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert list(report["runs"]) == ["1_worker", "1_worker tuned"]
    assert report["tuned"] == {"JUDGE_LLM_CONCURRENCY": "8"}
    for row in report["runs"].values():
        assert row["ok"] == 4 and row["errors"] == 0
        assert row["throughput_per_s"] > 0 and row["p50_x_L"] > 0
        assert row["p95_x_L"] >= row["p50_x_L"]
        assert row["service_cpu_ms_per_request"] > 0
        assert row["client_cpu_ms_per_request"] > 0
    text = capsys.readouterr().out
    assert text.strip() == render(report)
    assert "closed loop" in text
    assert "the default configuration, then tuned: JUDGE_LLM_CONCURRENCY=8" in text
    assert text.index("1_worker tuned") > text.index("1_worker ")
    assert max(len(line) for line in text.splitlines()) <= 100  # was > 250 wide


def test_repeats_give_each_run_and_the_medians(tmp_path: Path, capsys) -> None:
    out = tmp_path / "report.json"
    argv = ["--clients", "2", "--requests", "2", "--workers", "1", "--checkpoints", "1"]
    argv += ["--batching", "per_modality", "--latency", "0.02", "--repeats", "3"]
    assert main([*argv, "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["repeats"] == 3 and list(report["runs"]) == ["1_worker"]
    row = report["runs"]["1_worker"]
    assert len(row["each"]) == 3 and row["ok"] == 2 and row["errors"] == 0
    for key in ("throughput_per_s", "service_cpu_ms_per_request", "p95_x_L"):
        values = sorted(one[key] for one in row["each"])
        assert row[key] == pytest.approx(values[1], abs=0.01)  # the median of three
    text = capsys.readouterr().out
    assert all(f"1_worker #{i}" in text for i in (1, 2, 3)) and "1_worker median" in text
    with pytest.raises(SystemExit, match="at least 1"):
        main([*argv[:-2], "--repeats", "0"])
