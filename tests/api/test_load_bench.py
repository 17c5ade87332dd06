"""The load benchmark command runs end to end (tiny settings; numbers are not asserted)."""

from __future__ import annotations

from benchmarks.load import render, run


def test_load_bench_reports_the_default_configuration_first_and_tuned_runs_labelled():
    report = run(
        latency=0.05,
        clients=2,
        total=4,
        workers=[1],
        checkpoints=1,
        batching="per_modality",
        rate=0.0,
        tuned={"JUDGE_LLM_CONCURRENCY": "8"},
    )
    assert list(report["runs"]) == ["1_worker", "1_worker tuned"]
    for row in report["runs"].values():
        assert row["ok"] == 4 and row["errors"] == 0
        assert row["throughput_per_s"] > 0 and row["p50_x_L"] > 0
        assert row["p95_x_L"] >= row["p50_x_L"]
        assert row["service_cpu_ms_per_request"] > 0
    text = render(report)
    assert "1_worker" in text and "closed loop" in text
    assert "the default configuration, then tuned: JUDGE_LLM_CONCURRENCY=8" in text
    assert text.index("1_worker tuned") > text.index("1_worker ")
    assert max(len(line) for line in text.splitlines()) <= 100  # was > 250 wide
