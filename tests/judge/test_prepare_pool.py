"""Requests are prepared on the per-process prepare pool (prepare_threads threads), in the
caller's context, never on the event loop."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time

import pytest

from benchmarks.score import bench_submission
from judge.config import JudgeSettings
from judge.prepare_pool import in_prepare_pool, prepare_pool

REQUEST = contextvars.ContextVar("request", default="none")


async def test_work_runs_on_the_pool_in_the_callers_context() -> None:
    def where() -> tuple[str, str]:
        return threading.current_thread().name, REQUEST.get()

    REQUEST.set("r-1")
    name, seen = await in_prepare_pool(1, where)
    assert name.startswith("judge-prepare-1") and seen == "r-1"
    assert prepare_pool(1) is prepare_pool(1) and prepare_pool(2) is not prepare_pool(1)


async def test_the_pool_bounds_how_many_run_at_once() -> None:
    running, most, lock = 0, 0, threading.Lock()

    def work() -> None:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.02)
        with lock:
            running -= 1

    await asyncio.gather(*(in_prepare_pool(2, work) for _ in range(8)))
    assert most == 2


async def test_the_engine_prepares_on_the_pool(make_judge, provider, monkeypatch) -> None:
    judge = make_judge(prepare_threads=3)
    seen: list[str] = []
    prepare = judge.prepare

    def spy(*args, **kwargs):
        seen.append(threading.current_thread().name)
        return prepare(*args, **kwargs)

    monkeypatch.setattr(judge, "prepare", spy)
    result = await judge.ascore(bench_submission(1, side=64))
    assert result.status == "scored"
    assert seen and seen[0].startswith("judge-prepare-3")


def test_the_size_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert JudgeSettings().prepare_threads == 1
    monkeypatch.setenv("JUDGE_PREPARE_THREADS", "4")
    assert JudgeSettings().prepare_threads == 4
    monkeypatch.setenv("JUDGE_PREPARE_THREADS", "0")
    with pytest.raises(ValueError, match="prepare_threads"):
        JudgeSettings()
