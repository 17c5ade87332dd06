"""The load benchmark command runs end to end, as docs/throughput.md shows it (tiny settings;
numbers are not asserted)."""

from __future__ import annotations

import json
from pathlib import Path

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
