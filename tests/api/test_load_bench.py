"""The load benchmark command runs end to end (tiny settings; numbers are not asserted)."""

from __future__ import annotations

from benchmarks.load import render, run


def test_load_bench_reports_every_run():
    report = run(
        latency=0.05,
        clients=2,
        total=4,
        workers=[1],
        checkpoints=1,
        batching="per_modality",
        rate=0.0,
    )
    row = report["runs"]["1_worker"]
    assert row["ok"] == 4 and row["errors"] == 0
    assert row["throughput_per_s"] > 0 and row["p50_x_L"] > 0 and row["p95_x_L"] >= row["p50_x_L"]
    assert row["service_cpu_ms_per_request"] > 0
    text = render(report)
    assert "1_worker" in text and "closed loop" in text
    assert max(len(line) for line in text.splitlines()) <= 100  # was > 250 wide
