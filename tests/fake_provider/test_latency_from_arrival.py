"""The fake's per-call latency counts from the request's arrival, its own parsing included."""

from __future__ import annotations

import asyncio

import tests.fakes.provider.base as base
from tests.fakes.provider import FakeProvider


async def _sleeps(monkeypatch, fake: FakeProvider, already_elapsed: float) -> list[float]:
    slept: list[float] = []
    real_sleep = asyncio.sleep

    async def record(delay: float) -> None:
        slept.append(delay)
        await real_sleep(0)

    monkeypatch.setattr(base.asyncio, "sleep", record)
    arrived = asyncio.get_running_loop().time() - already_elapsed
    body = {"messages": [{"role": "user", "content": "hi"}]}
    await fake._answer(body, body, lambda *_: {}, arrived)
    return slept


async def test_time_spent_since_arrival_is_taken_off_the_latency(monkeypatch):
    fake = FakeProvider(latency=0.5)
    (slept,) = await _sleeps(monkeypatch, fake, already_elapsed=0.2)
    assert 0.25 < slept <= 0.3  # 0.5 - 0.2 (less the microseconds of this test)


async def test_a_request_that_took_longer_than_the_latency_is_answered_at_once(monkeypatch):
    fake = FakeProvider(latency=0.1)
    assert await _sleeps(monkeypatch, fake, already_elapsed=0.4) == [0.0]
