"""The blocking entry points judge on uvloop's event loop, as the service does (issue 37)."""

from __future__ import annotations

import asyncio

import uvloop

from judge import event_loop, front
from judge.engine import Judge


async def loop_type() -> type:
    return type(asyncio.get_running_loop())


class LoopProbe(Judge):
    """A Judge whose async entry points report the loop they run on."""

    async def ascore(self, submission, *, base_dir=None, **overrides):
        return await loop_type()

    async def acompare(self, comparison, *, base_dir=None, **overrides):
        return await loop_type()


def test_judge_score_and_compare_run_on_uvloop() -> None:
    probe = LoopProbe(backend="local")
    assert probe.score({}) is uvloop.Loop
    assert probe.compare({}) is uvloop.Loop
    assert event_loop.run(loop_type()) is uvloop.Loop


def test_the_one_call_functions_use_uvloop_also_inside_a_running_loop() -> None:
    assert front._run(loop_type()) is uvloop.Loop

    async def from_a_notebook() -> type:  # a caller's own (asyncio) loop is running
        return front._run(loop_type())

    assert asyncio.run(from_a_notebook()) is uvloop.Loop
