"""A cold ``judge score`` imports nothing on its event loop (issue 13, finding 11).

The first model call of a fresh process used to import litellm's provider modules (and the
OpenAI SDK's resources) on the event loop, so every other call of the submission waited
behind it. The check is structural, not a wall-clock bound: in a fresh process scoring the
finding's 12-checkpoint CO task, an import hook records every module first imported on the
main thread while its event loop runs; there must be none (imports belong on the warm-up
thread, before or beside the graph run).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.score import bench_submission
from tests.fakes.provider import FakeProvider

REPO = Path(__file__).resolve().parents[2]

# Runs `judge score` in this fresh process; a meta-path hook notes (and never answers) every
# first import made on the main thread while an event loop runs there.
PROBE = r"""
import asyncio, json, sys, threading

on_loop = []


class OnLoopImports:
    def find_spec(self, name, path=None, target=None):
        if threading.current_thread() is threading.main_thread():
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                return None
            on_loop.append(name)
        return None


sys.meta_path.insert(0, OnLoopImports())
from judge.cli.main import main

rc = main(sys.argv[1:])
print("ON-LOOP " + json.dumps({"rc": rc, "modules": on_loop}), file=sys.stderr)
"""


@pytest.mark.slow
def test_a_cold_score_imports_nothing_on_its_event_loop(
    provider: FakeProvider, tmp_path: Path
) -> None:
    path = tmp_path / "co12.json"
    path.write_text(json.dumps(bench_submission(12)), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    args = ["score", str(path), "--model", "openai/fake-judge", "--api-base", provider.base_url]
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args, "--api-key", "k", "--compact"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = [x for x in proc.stderr.splitlines() if x.startswith("ON-LOOP ")]
    assert lines, proc.stderr[-2000:]
    report = json.loads(lines[-1].removeprefix("ON-LOOP "))
    assert report["rc"] == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    assert result["status"] == "scored" and result["usage"]["llm_calls"] == 34, result
    assert provider.calls == 34  # every call reached the fake: the run was a real one
    assert report["modules"] == [], (
        f"{len(report['modules'])} module(s) first imported on the event loop: "
        f"{report['modules'][:20]}"
    )
