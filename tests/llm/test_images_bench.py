"""``python -m benchmarks.t2i``: every option used once; bad options exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.t2i import main


def test_bench_reports_renderer_and_litellm_path(tmp_path: Path, capsys) -> None:
    out = tmp_path / "bench.json"
    code = main(["--sizes", "64x64,32x48", "--repeats", "3", "--latency", "0.05",
                 "--prompts", "2", "--images", "2", "--size", "32x32", "--concurrency", "1",
                 "--out", str(out)])  # fmt: skip
    assert code == 0
    report = json.loads(out.read_text())
    assert json.loads(capsys.readouterr().out) == report
    assert set(report["builtin"]) == {"64x64", "32x48"}
    assert report["builtin"]["64x64"]["median_ms"] > 0
    lit = report["litellm"]
    assert lit["statuses"] == ["ok"] and lit["calls"] == 2 and lit["floor_in_L"] == 2
    assert lit["wall_in_L"] >= 2  # one call in flight at a time, each at least L


def test_bench_can_skip_the_litellm_part(capsys) -> None:
    assert main(["--sizes", "32x32", "--repeats", "1", "--skip-litellm"]) == 0
    assert "litellm" not in json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    "argv",
    [["--sizes", "tiny"], ["--sizes", "8x8"], ["--repeats", "0"], ["--latency", "0"]],
)
def test_bad_options_exit_2(argv: list[str], capsys) -> None:
    assert main(["--skip-litellm", *argv]) == 2
    assert "benchmarks.t2i:" in capsys.readouterr().err
