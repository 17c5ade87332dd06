"""The shipped benchmark ``python -m benchmarks.edit_metrics``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import edit_metrics as bench
from skills.metrics import metric_names


@pytest.mark.slow
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
        assert report["seconds"][name]["wall_median"] >= 0  # rounded to 0.1 ms: may be 0
        assert report["seconds"][name]["cpu_median"] >= 0  # (the bookkeeping: scripted clock)
    assert report["values"]["text_rendering"] > 0.8  # every metric applies to the bench pair
    assert report["values"]["face_identity"] > 0.9 and report["values"]["color_shift"] > 5
    assert report["target_met"] == (report["total_wall_median"] < report["target_seconds"])


class ScriptedClock:
    """Timed block ``k`` (counting from 0) lasts ``k + 1`` wall seconds and ``(k + 1) / 10``
    CPU seconds, so the report's medians can be worked out by hand."""

    def __init__(self) -> None:
        self.reads = {"wall": 0, "cpu": 0}
        self.now = {"wall": 0.0, "cpu": 0.0}

    def _read(self, kind: str, scale: float) -> float:
        n = self.reads[kind]
        self.reads[kind] += 1
        if n % 2:  # the end of block n // 2
            self.now[kind] += (n // 2 + 1) * scale
        return self.now[kind]

    def perf_counter(self) -> float:
        return self._read("wall", 1.0)

    def process_time(self) -> float:
        return self._read("cpu", 0.1)


@pytest.mark.slow
def test_each_row_is_the_median_of_its_own_repeats(monkeypatch) -> None:
    """The bench's bookkeeping against a scripted clock: which block lands in which row."""
    clock = ScriptedClock()
    monkeypatch.setattr(bench, "time", clock)
    repeats = 3
    report = bench.run_bench(size=64, repeats=repeats, progress=False)
    rows = ["prepare", *metric_names(), "all", "next_edit_same_source"]
    per_repeat = len(rows)
    for i, name in enumerate(rows):
        blocks = [1 + r * per_repeat + i for r in range(repeats)]  # block 0 is the warm-up
        want = sorted(blocks)[1] + 1  # the middle of three, lasting k + 1 s
        assert report["seconds"][name] == {
            "wall_median": want,
            "cpu_median": pytest.approx(want / 10, abs=1e-4),
        }, name
    assert report["warmup_seconds"] == 1.0
    assert report["total_wall_median"] == report["seconds"]["all"]["wall_median"]
    assert clock.reads["wall"] == 2 * (1 + repeats * per_repeat)


@pytest.mark.slow
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
