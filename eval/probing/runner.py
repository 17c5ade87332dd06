"""The probe run: grow the topic tree breadth-first (default; the nodes of a level run
concurrently) or depth-first, then export it with its metrics.

Example::

    ctx = ProbeContext(params, writer, render, labeller, Journal(out / "journal.jsonl"),
                       FileImages(out))
    tree = await run_probe(ctx, on_update=save)     # {"root": NODE, "metrics": {...}}
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from eval.probing.context import ProbeContext
from eval.probing.metrics import comparison, tree_metrics
from eval.probing.nodes import localise_and_reflect, reflect_and_grow, refresh, run_tests
from eval.probing.tree import ProbeNode

Update = Callable[[ProbeNode], Awaitable[None]]


async def _nothing(root: ProbeNode) -> None:
    return None


def export(root: ProbeNode, ctx: ProbeContext, extra: dict[str, Any] | None = None) -> dict:
    """``{"root": NODE, "metrics": {...}, "params": {...}}`` (docs/design.md#probes),
    overrides applied by the caller."""
    out = {
        "root": root.to_json(),
        "metrics": tree_metrics(root, ctx.params.bug_threshold),
        "params": ctx.params.model_dump(),
    }
    if extra:
        out.update(extra)
    return out


async def _bfs(ctx: ProbeContext, root: ProbeNode, update: Update) -> None:
    parents: dict[str, ProbeNode | None] = {root.id: None}
    level = [root]
    tails: list[asyncio.Task[None]] = []
    try:
        while level:

            async def front(node: ProbeNode) -> None:
                parent = parents[node.id]
                await run_tests(ctx, root, node, parent)
                await update(root)
                await reflect_and_grow(ctx, root, node, parent)
                tails.append(asyncio.create_task(localise_and_reflect(ctx, root, node)))

            await asyncio.gather(*(front(n) for n in level))
            await update(root)
            nxt = []
            for node in level:
                for child in node.children:
                    parents[child.id] = node
                    nxt.append(child)
            level = nxt
        await asyncio.gather(*tails)
    finally:  # a stopped run (cancelled, out of budget) leaves no localisation running
        for task in tails:
            task.cancel()
            task.add_done_callback(_retrieve)


def _retrieve(task: asyncio.Task[None]) -> None:
    """Read a finished task's error (a stopped run's tail), so it is not logged as lost."""
    if not task.cancelled():
        task.exception()


async def _dfs(
    ctx: ProbeContext, root: ProbeNode, node: ProbeNode, parent: ProbeNode | None, update: Update
) -> None:
    await run_tests(ctx, root, node, parent)
    await reflect_and_grow(ctx, root, node, parent)
    await localise_and_reflect(ctx, root, node)
    await update(root)
    for child in node.children:
        await _dfs(ctx, root, child, node, update)


async def grow_tree(ctx: ProbeContext, update: Update = _nothing) -> ProbeNode:
    """Build (or, from the journal, rebuild and finish) the tree."""
    root = ProbeNode(id="n0", topic=ctx.params.topic, depth=0)
    if ctx.params.strategy == "dfs":
        await _dfs(ctx, root, root, None, update)
    else:
        await _bfs(ctx, root, update)
    await refresh(ctx, root)
    await update(root)
    return root


def _calls(ctx: ProbeContext) -> dict[str, int]:
    """Requests per stage this process issued, plus the judge's own model calls."""
    return {**dict(ctx.calls), "judge_model_calls": ctx.labeller.llm_calls}


async def run_probe(ctx: ProbeContext, update: Update = _nothing) -> dict[str, Any]:
    """The whole run: the tree, then (``params.baseline``) the non-adaptive baseline with the
    same number of inputs and the comparison. Returns the exported tree."""
    try:
        root = await grow_tree(ctx, update)
    finally:
        ctx.drop_ahead()
    extra: dict[str, Any] = {"calls": _calls(ctx)}
    metrics = tree_metrics(root, ctx.params.bug_threshold)
    if ctx.params.baseline:
        from eval.probing.baseline import run_baseline

        try:
            base = await run_baseline(ctx, metrics["n_inputs"])
        finally:
            ctx.drop_ahead()
        extra["baseline"] = base
        if base["metrics"]:
            extra["comparison"] = comparison(metrics, base["metrics"])
        extra["calls"] = _calls(ctx)
    return export(root, ctx, extra)
