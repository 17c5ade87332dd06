"""run.json's per-stage time: overlapping steps count once (issue 38 item 11).

A step's ``latency_s`` is its wall time, waiting for a concurrency slot included, so summing
the steps of a stage gave figures longer than the run itself (794 s for 12 mock calls).
"""

from __future__ import annotations

import asyncio
import time

from eval.studies.stages import StageUsage
from eval.t2i.generator import ImageGenerator
from eval.t2i.spec import BackendSpec


async def test_busy_time_counts_overlapping_steps_once() -> None:
    # four generations share one slot (concurrency 1): each waits for the ones before it
    spec = BackendSpec(id="one-slot", model="builtin/renderer", size="384x384", concurrency=1)
    generator, usage = ImageGenerator(), StageUsage()

    async def step(k: int) -> float:
        gen = await generator.generate(spec, f"a red cube number {k}", 2, seed=k)
        assert gen.status == "ok"
        usage.add("generation", gen.usage)
        return gen.usage["latency_s"]

    start = time.perf_counter()
    took = await asyncio.gather(*(step(k) for k in range(4)))
    wall = time.perf_counter() - start
    stage = usage.as_dict()["generation"]
    assert stage["steps"] == 4 and "latency_s" not in stage
    assert sum(took) > 1.5 * wall  # the old figure: the waits summed over the steps
    assert 0.5 * wall < stage["busy_s"] <= wall + 0.01
    assert stage["busy_s"] <= stage["last_done_s"] + 0.001
    assert usage.as_dict()["judge"]["busy_s"] == 0.0  # a stage with no step was never busy
