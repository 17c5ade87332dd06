"""Render an input with the model under test and label its images with the judge.

A backend that refuses, blocks or errors gives a test with that status and its reason and no
verdicts (excluded from the metrics, shown in the tree); a judge failure likewise
(``judge_failed``). Nothing here raises for a bad backend or judge answer.

Example::

    test = await run_test(ctx, "n0", 2, "a red cube", ["The cube is red."], round_index=0)
"""

from __future__ import annotations

import logging
from typing import Any

from eval.probing.context import ProbeContext, text_key
from eval.probing.tree import ProbeTest

log = logging.getLogger("eval.probing")


async def render_and_label(
    ctx: ProbeContext, prompt: str, checks: list[str], stage: str, *, parse: bool = False
) -> dict[str, Any]:
    """``{"status", "reason", "images", "verdicts"}`` for ``prompt`` (n_x images); with
    ``parse``, the scene graph is asked for while the images are judged."""
    n = ctx.params.images
    ahead = ctx.renders.pop(prompt, None) if stage == "test" else None
    if ahead is None:
        ctx.count(f"{stage}_render")
    try:
        gen = await (ahead if ahead is not None else ctx.render(prompt, n))
    except Exception as exc:  # a renderer bug must not take the run down
        log.warning("render failed for %r: %s", prompt[:60], exc)
        return {"status": "failed", "reason": f"{type(exc).__name__}: {exc}"[:300], "images": []}
    if gen.status != "ok" or not gen.images:
        status = gen.status if gen.status != "ok" else "empty"
        return {"status": status, "reason": gen.reason or "no image returned", "images": []}
    refs = [await ctx.images.put(png) for png in gen.images]
    if parse:
        ctx.parse_ahead(prompt)
    ctx.count(f"{stage}_judge")
    try:
        verdicts, reason = await ctx.labeller.label(prompt, checks, list(gen.images))
    except Exception as exc:  # judge or provider trouble: recorded, the run goes on
        log.warning("judge failed for %r: %s", prompt[:60], exc)
        reason = f"{type(exc).__name__}: {exc}"[:300]
        return {"status": "judge_failed", "reason": reason, "images": refs}
    status = "ok" if any(v is not None for v in verdicts) else "judge_failed"
    return {"status": status, "reason": reason, "images": refs, "verdicts": verdicts}


async def run_test(
    ctx: ProbeContext, node_id: str, index: int, prompt: str, checks: list[str], round_index: int
) -> ProbeTest:
    """Test ``index`` of a node (journaled)."""

    async def make() -> dict[str, Any]:
        out = await render_and_label(ctx, prompt, checks, "test", parse=node_id != "baseline")
        ctx.progress("tests", 1)
        return out

    got = await ctx.step(f"{node_id}:test:{index}", make)
    return ProbeTest(
        input=prompt,
        round=round_index,
        status=got["status"],
        reason=got.get("reason"),
        checks=checks,
        images=got.get("images", []),
        judge_verdicts=got.get("verdicts", []),
    )


async def sub_test(
    ctx: ProbeContext, key: str, prompt: str, checks: list[str]
) -> tuple[bool | None, float | None, list[str]]:
    """A localisation render of a sub-prompt: (passed, pass rate, image refs); journaled."""
    got = await ctx.step(
        f"{key}:sub:{text_key(prompt)}",
        lambda: render_and_label(ctx, prompt, checks, "localise"),
    )
    labelled = [v for v in got.get("verdicts", []) if v is not None]
    if not labelled:
        return None, None, got.get("images", [])
    rate = sum(labelled) / len(labelled)
    return rate >= ctx.params.bug_threshold, rate, got.get("images", [])
