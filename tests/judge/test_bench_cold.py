"""`python -m benchmarks.score --cold-start`: fresh `judge score` processes, model time in L."""

from __future__ import annotations

import json

import pytest

from benchmarks.score import main
from benchmarks.support.cold_start import summarize


@pytest.mark.slow
def test_cold_start_only_runs_fresh_processes(tmp_path, capsys):
    out = tmp_path / "bench.json"
    args = ["--cold-start-only", "--cold-start", "1", "--latency", "0.05"]
    assert main([*args, "--checkpoints", "2", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "cold start (1 fresh `judge score` processes" in printed
    report = json.loads(out.read_text())["cold_start"]
    assert report["processes"] == 1 and report["calls"] == 2 * 2 + 4 + 4 + 2
    assert report["per_process_x_L"][0] >= 1.0  # at least one round trip of L
    # whether the target was met is the benchmark's figure to report, not a test outcome; the
    # test checks the report says it truthfully of the process it measured
    within = report["per_process_x_L"][0] <= report["target_x_L"]
    assert report["within_target"] == ("1/1" if within else "0/1")
    span_within = report["per_process_span_x_L"][0] <= report["target_x_L"]
    assert report["span_within_target"] == ("1/1" if span_within else "0/1")
    assert f"within target in {report['within_target']};" in printed
    # the model-call span is measured in the fresh process too, and lies inside the graph run
    assert 1.0 <= report["per_process_span_x_L"][0] <= report["per_process_x_L"][0]
    assert "graph run (usage.latency_s" in printed and "model-call span" in printed


def test_cold_start_only_needs_processes(capsys):
    assert main(["--cold-start-only", "--cold-start", "0"]) == 2
    assert "--cold-start >= 1" in capsys.readouterr().err


def test_summary_counts_processes_within_target():
    rows = [{"model_x_L": x, "span_x_L": x - 0.2} for x in (1.1, 1.4, 4.4)]
    summary = summarize(rows, target=1.5)
    assert summary["within_target"] == "2/3" and summary["max_x_L"] == 4.4
    assert summary["span_within_target"] == "2/3" and summary["span_max_x_L"] == 4.2
