"""The fake's per-call latency counts from the request's arrival, its own parsing included."""

from __future__ import annotations

import asyncio

import pytest

import tests.fakes.provider.base as base
from tests.fakes.provider import FakeProvider


async def _sleeps(monkeypatch, fake: FakeProvider, already_elapsed: float) -> list[float]:
    slept: list[float] = []
    real_sleep = asyncio.sleep

    async def record(delay: float) -> None:
        slept.append(delay)
        await real_sleep(0)

    monkeypatch.setattr(base.asyncio, "sleep", record)
    loop = asyncio.get_running_loop()
    now = loop.time()
    monkeypatch.setattr(loop, "time", lambda: now)  # a still clock: no slack for a busy CPU
    body = {"messages": [{"role": "user", "content": "hi"}]}
    try:
        await fake._answer(body, body, lambda *_: {}, now - already_elapsed)
    finally:
        monkeypatch.undo()
    return slept


async def test_time_spent_since_arrival_is_taken_off_the_latency(monkeypatch):
    fake = FakeProvider(latency=0.5)
    (slept,) = await _sleeps(monkeypatch, fake, already_elapsed=0.2)
    assert slept == pytest.approx(0.3, abs=1e-9)  # 0.5 - 0.2, exactly: the clock stood still


async def test_a_request_that_took_longer_than_the_latency_is_answered_at_once(monkeypatch):
    fake = FakeProvider(latency=0.1)
    assert await _sleeps(monkeypatch, fake, already_elapsed=0.4) == [0.0]
