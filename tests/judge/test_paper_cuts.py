"""Paper cuts from the walk of issue 21, each checked where a user meets it."""

from __future__ import annotations

import csv
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from api.core.logs import JsonLines, log_config
from eval.metaeval.plots import ablation_bars
from eval.metaeval.report import memory_line
from eval.studies.config import StudyError, load_study
from eval.studies.report.consistency import one_measure
from judge.cli.summary import summary
from judge.domain.result import Result, SafetyReport, SafetyVerdict

REPO = Path(__file__).resolve().parents[2]


def test_a_safety_filter_that_could_not_run_is_not_called_a_block() -> None:
    result = Result(
        submission_id="s1",
        status="partial",
        safety=SafetyReport(passed=None, prompt=SafetyVerdict(passed=None, reason="timeout")),
    )
    text = summary(result)
    assert "BLOCKED" not in text and "Safety: UNKNOWN" in text


def _judge_cmd() -> str:
    env = os.environ.get("PYTHONPATH")
    return (
        f"PYTHONPATH={REPO}{os.pathsep + env if env else ''} "
        f"{sys.executable} -m judge.cli.main"
    )


@pytest.mark.slow
@pytest.mark.parametrize("verb", ["skills", "leaderboard"])
def test_piping_into_head_ends_quietly(verb: str, tmp_path: Path) -> None:
    """The reader leaves early: no BrokenPipeError traceback, exit 0."""
    if verb == "skills":
        args = "skills"
    else:  # a board big enough to fill the pipe: 300 models, JSON with the win matrix
        votes = tmp_path / "votes.csv"
        with open(votes, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(["prompt_id", "model_a", "model_b", "winner", "criterion"])
            for i in range(300):
                w.writerow([f"p{i}", f"m{i}", f"m{(i + 1) % 300}", "a", "preference"])
        args = f"leaderboard rank {votes} --json --bootstrap 0"
    proc = subprocess.run(
        ["bash", "-o", "pipefail", "-c", f"{_judge_cmd()} {args} | head -c 100"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr
    assert len(proc.stdout) == 100


def test_ablation_plot_puts_error_and_agreement_on_their_own_axes(tmp_path: Path) -> None:
    rows = {"similarity": {"mae": 0.7, "within1": 0.8, "spearman": 0.6},
            "none": {"mae": 1.1, "within1": 0.6, "spearman": None}}
    path = ablation_bars({"kind": "retrieval", "rows": rows}, tmp_path / "ablation.png")
    assert path.stat().st_size > 0
    import matplotlib.pyplot as plt

    assert not plt.get_fignums()  # closed after saving


def test_report_names_the_memory_really_used() -> None:
    assert "--memory-dir" in memory_line({"memory_from": None, "memory_dir": "/srv/mem",
                                          "cv": None, "settings": {}})
    assert "zero-shot" in memory_line({"memory_from": None, "cv": None,
                                       "settings": {"memory_dir": "/x/no-memory"}})
    assert "built from `d`" in memory_line({"memory_from": "d", "cv": "lopo", "settings": {}})


def test_service_logs_are_json_lines() -> None:
    fmt = '%s - "%s %s HTTP/%s" %d'
    args = ("127.0.0.1:5", "GET", "/readyz", "1.1", 200)
    access = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, fmt, args, None)
    line = json.loads(JsonLines().format(access))
    assert line["path"] == "/readyz" and line["status"] == 200 and line["level"] == "info"
    config = log_config("info")
    assert config["loggers"]["uvicorn.access"]["handlers"] == ["stderr"]


def test_the_service_start_prints_no_pkg_resources_warning() -> None:
    proc = subprocess.run(
        [sys.executable, "-W", "default", "-c",
         "from api.core.redis_embedded import redis_binary; print(redis_binary())"],
        cwd=REPO, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.returncode == 0 and proc.stdout.strip().endswith("redis-server")
    assert "pkg_resources" not in proc.stderr


def test_a_bad_study_file_reports_every_problem(tmp_path: Path) -> None:
    (tmp_path / "tasks.jsonl").write_text("")
    path = tmp_path / "s.toml"
    path.write_text(
        '[study]\nname = "d"\ntasks = "tasks.jsonl"\ncolour = "red"\n'
        '[[prompters]]\nid = "p"\nkind = "mllm"\nmodel = "m"\ncondition = "expert"\n'
        '[[prompters]]\nid = "p"\nkind = "human"\nprompts = "missing.jsonl"\n'
        '[[backends]]\nid = "b"\nmodel = "builtin/renderer"\nsizee = "1x1"\n'
    )
    with pytest.raises(StudyError) as err:
        load_study(path)
    text = str(err.value)
    for part in ("study.colour", "backends[0].sizee", "'p' is used twice",
                 "unknown condition 'expert'", "prompters[1].prompts: no such file"):
        assert part in text, text


def test_w_in_a_category_without_values_says_why_not_has_0_backends() -> None:
    cells = [
        {"prompter": p, "backend": b, "category": "IM", "subjective_image": None,
         "objective_image_rate": {"mean": v}}
        for p, v in (("ana", 60.0), ("bo", 40.0)) for b in ("r1", "r2")
    ]
    res = one_measure(cells, "subjective_image", "IM")
    assert res["w"] is None
    assert "has 0" not in res["reason"] and "2 backends" in res["reason"]
    assert "IM tasks get no subjective image scores" in res["reason"]
