"""The non-adaptive baseline: the same number of inputs for the root topic, written at once
without any feedback, screened, rendered and labelled exactly like the tree's.

Inputs are asked for in batches of ``n_i`` (concurrently, each batch labelled so answers
differ), de-duplicated across batches; a short fall is topped up once and otherwise noted.

Example::

    base = await run_baseline(ctx, n_inputs=65)   # {"tests": [...], "metrics": {...}}
"""

from __future__ import annotations

import asyncio
from typing import Any

from eval.probing.context import ProbeContext
from eval.probing.generation import screen
from eval.probing.metrics import tree_metrics
from eval.probing.params import MAX_INPUT_WORDS
from eval.probing.testing import run_test
from eval.probing.tree import ProbeNode


async def baseline_inputs(ctx: ProbeContext, n_inputs: int) -> dict[str, Any]:
    """``{"inputs": [{"input", "checks"}], "notes": [...]}`` (journaled)."""
    size = ctx.params.inputs
    topic = ctx.params.topic

    async def batch(k: int, count: int) -> list[str]:
        label = f"{topic} (set {k + 1})"
        ctx.count("baseline_generate")
        return await ctx.writer.baseline(label, count=count, max_words=MAX_INPUT_WORDS)

    async def make() -> dict[str, Any]:
        accepted: list[dict[str, Any]] = []
        notes: list[str] = []
        chunks = [min(size, n_inputs - s) for s in range(0, n_inputs, size)]
        for attempt in range(2):
            groups = await asyncio.gather(
                *(batch(k + attempt * len(chunks), c) for k, c in enumerate(chunks))
            )
            candidates = [t for g in groups for t in g]
            known = [a["input"] for a in accepted]
            got, why = await screen(ctx, topic, candidates, known, n_inputs - len(accepted))
            accepted += got
            notes += why
            missing = n_inputs - len(accepted)
            if missing <= 0:
                break
            chunks = [min(size, missing - s) for s in range(0, missing, size)]
        if len(accepted) < n_inputs:
            notes.append(f"baseline: {len(accepted)} of {n_inputs} inputs were usable")
        return {"inputs": accepted[:n_inputs], "notes": notes}

    return await ctx.step("baseline:inputs", make)


async def run_baseline(ctx: ProbeContext, n_inputs: int) -> dict[str, Any]:
    """The baseline's tests and metrics."""
    if n_inputs <= 0:
        return {"tests": [], "notes": ["the tree labelled no input"], "metrics": {}}
    got = await baseline_inputs(ctx, n_inputs)
    tests = await asyncio.gather(
        *(
            run_test(ctx, "baseline", i, item["input"], item["checks"], 0)
            for i, item in enumerate(got["inputs"])
        )
    )
    holder = ProbeNode(id="baseline", topic=ctx.params.topic, depth=0, tests=list(tests))
    metrics = tree_metrics(holder, ctx.params.bug_threshold)
    metrics.pop("agreement", None)
    metrics.pop("n_nodes", None)
    return {"tests": [t.to_json() for t in tests], "notes": got["notes"], "metrics": metrics}
