"""The phases of one node: tests, the first reflection with child topics, and localisation
with the final reflection.

1. **tests** — generation rounds (each sees the node's earlier results and the latest
   reflection), then each input rendered and labelled; inputs of a round run concurrently.
2. **reflect + topics** — concurrently: a reflection on the test records, and ``n_t`` child
   topics (from the records and the parent's reflection) when the node may grow children.
3. **localise + final reflection** — every bug (pass rate below the bug threshold) is
   localised (scene graph, then :func:`eval.probing.localise.localise`), then the node is
   reflected on again with the minimal failing parts. This phase does not hold up the children.

Every model answer is a journaled step, so re-running a node after a crash repeats nothing
that finished.
"""

from __future__ import annotations

import asyncio
import logging

from eval.probing.context import LOCALISING, ProbeContext
from eval.probing.generation import node_inputs, records
from eval.probing.localise import localise
from eval.probing.overrides import apply_overrides
from eval.probing.scene_graph import SceneGraph
from eval.probing.testing import run_test, sub_test
from eval.probing.textutil import near_duplicate
from eval.probing.tree import Failure, ProbeNode, SplitTest, child_id

log = logging.getLogger("eval.probing")


def _reason(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:500]


async def refresh(ctx: ProbeContext, root: ProbeNode) -> None:
    """Apply the current human overrides to the whole tree."""
    apply_overrides(root, await ctx.overrides())


async def run_tests(
    ctx: ProbeContext, root: ProbeNode, node: ProbeNode, parent: ProbeNode | None
) -> None:
    """Phase 1; a failing LLM leaves the node ``failed`` with the reason."""
    node.status = "running"
    parent_reflection = parent.reflections[0] if parent and parent.reflections else None
    for r, count in enumerate(ctx.params.per_round()):
        await refresh(ctx, root)
        reflection = node.reflections[-1] if node.reflections else parent_reflection
        try:
            batch = await node_inputs(
                ctx,
                node,
                round_index=r,
                count=count,
                parent=parent.topic if parent else None,
                reflection=reflection,
            )
        except Exception as exc:
            node.status, node.reason = "failed", f"input generation failed: {_reason(exc)}"
            return
        node.notes += batch["notes"]
        start = len(node.tests)
        node.tests += await asyncio.gather(
            *(
                run_test(ctx, node.id, start + i, item["input"], item["checks"], r)
                for i, item in enumerate(batch["inputs"])
            )
        )


async def reflect_and_grow(
    ctx: ProbeContext, root: ProbeNode, node: ProbeNode, parent: ProbeNode | None
) -> None:
    """Phase 2: the first reflection and, when allowed, the children."""
    await refresh(ctx, root)
    recs = records(node)
    grow = node.depth + 1 < ctx.params.depth and node.status != "failed"
    rate = node.pass_rate
    if grow and (rate is None or rate < ctx.params.threshold):
        grow = False
        node.notes.append(
            "no children: "
            + (
                "no image was labelled"
                if rate is None
                else f"pass rate {rate:.2f} is below the threshold ρ"
            )
        )

    async def first_reflection() -> None:
        if not recs:
            return
        try:
            text = await ctx.call(
                "reflect",
                f"{node.id}:reflect:0",
                lambda: ctx.writer.reflect(node.topic, records=recs, minimal=[]),
            )
            node.reflections = [text]
        except Exception as exc:
            node.notes.append(f"reflection failed: {_reason(exc)}")

    async def topics() -> list[str]:
        if not grow:
            return []
        parent_reflection = parent.reflections[0] if parent and parent.reflections else None
        try:
            return await ctx.call(
                "topics",
                f"{node.id}:topics",
                lambda: ctx.writer.topics(
                    node.topic,
                    records=recs,
                    reflection=parent_reflection,
                    count=ctx.params.topics,
                ),
            )
        except Exception as exc:
            node.notes.append(f"topic proposal failed: {_reason(exc)}")
            return []

    _, proposed = await asyncio.gather(first_reflection(), topics())
    kept: list[str] = []
    for t in proposed:
        if near_duplicate(t, [*kept, node.topic], limit=0.8, n=2):
            node.notes.append(f"dropped a child topic too close to another: {t[:80]}")
        else:
            kept.append(t)
    if grow and len(kept) < ctx.params.topics:
        node.notes.append(f"{len(kept)} of {ctx.params.topics} child topics were usable")
    for i, topic in enumerate(kept[: ctx.params.topics]):
        node.children.append(
            ProbeNode(id=child_id(node.id, i), topic=topic, depth=node.depth + 1, parent=node.id)
        )


async def localise_one(ctx: ProbeContext, node: ProbeNode, index: int) -> Failure:
    """Localise the failing part of test ``index`` (journaled)."""
    test = node.tests[index]
    key = f"{node.id}:loc:{index}"

    async def make() -> dict:
        try:
            raw = await ctx.step(
                f"{key}:graph",
                lambda: _graph_json(ctx, test.input),
            )
            graph = SceneGraph.model_validate(raw)
        except Exception as exc:
            return Failure(
                input=test.input,
                test_index=index,
                status="failed",
                reason=f"no usable scene graph: {_reason(exc)}",
            ).model_dump()

        async def probe(text: str, checks: list[str]):
            token = LOCALISING.set(test.input)  # whose sub-input this is (editor probes)
            try:
                return await sub_test(ctx, key, text, checks)
            finally:
                LOCALISING.reset(token)

        found = await localise(graph, probe, max_tests=ctx.params.max_split_tests, text=ctx.compose)
        return Failure(
            input=test.input,
            test_index=index,
            scene_graph=graph.model_dump(),
            minimal_failing=found.minimal_failing,
            reason="stopped at the split budget" if found.exhausted else None,
            tests=[
                SplitTest(
                    prompt=t.prompt,
                    parts=sorted(t.atoms),
                    pass_rate=t.pass_rate,
                    passed=t.passed,
                    images=t.images,
                )
                for t in found.tested[1:]
            ],
        ).model_dump()

    return Failure.model_validate(await ctx.step(key, make))


async def _graph_json(ctx: ProbeContext, text: str) -> dict:
    ahead = ctx.graphs.pop(text, None)
    if ahead is None:
        ctx.count("scene_graph")
    graph = await (ahead if ahead is not None else ctx.writer.scene_graph(text))
    return graph.model_dump()


async def localise_and_reflect(ctx: ProbeContext, root: ProbeNode, node: ProbeNode) -> None:
    """Phase 3: localise every bug, then reflect again with the minimal failing parts."""
    bugs = [
        i
        for i, t in enumerate(node.tests)
        if t.pass_rate is not None and t.pass_rate < ctx.params.bug_threshold
    ]
    if ctx.params.localise and bugs:
        node.failures = list(await asyncio.gather(*(localise_one(ctx, node, i) for i in bugs)))
    if bugs and node.reflections:
        await refresh(ctx, root)
        minimal = [m for f in node.failures for m in f.minimal_failing]
        try:
            text = await ctx.call(
                "reflect",
                f"{node.id}:reflect:1",
                lambda: ctx.writer.reflect(node.topic, records=records(node), minimal=minimal),
            )
            node.reflections.append(text)
        except Exception as exc:
            node.notes.append(f"final reflection failed: {_reason(exc)}")
    if node.status != "failed":
        node.status = "done"
