"""New inputs for a node: LLM generation, the 77-word limit, n-gram de-duplication and the
relevance review (which also writes each accepted input's checklist).

Rejected candidates are recorded on the node as notes and shown to the LLM in a second
attempt; a node that still has too few inputs goes on with the ones it has (noted).

Example::

    batch = await node_inputs(ctx, node, round_index=0, count=5, parent=None, reflection=None)
    # {"inputs": [{"input": "...", "checks": ["..."]}], "notes": ["..."]}
"""

from __future__ import annotations

from typing import Any

from eval.probing.context import ProbeContext
from eval.probing.params import MAX_INPUT_WORDS
from eval.probing.textutil import near_duplicate, word_count
from eval.probing.tree import ProbeNode

ATTEMPTS = 2


def records(node: ProbeNode) -> list[dict[str, Any]]:
    """The node's tests as LLM records: effective 0/1 results per image."""
    out = []
    for t in node.tests:
        if t.verdicts:
            results = [int(v) for v in t.verdicts if v is not None]
            out.append({"topic": node.topic, "input": t.input, "results": results})
    return out


async def screen(
    ctx: ProbeContext, topic: str, candidates: list[str], known: list[str], count: int
) -> tuple[list[dict[str, Any]], list[str]]:
    """Accepted ``{"input", "checks"}`` (at most ``count``) and notes on the rejected ones."""
    notes: list[str] = []
    fresh: list[str] = []
    for text in candidates:
        n = word_count(text)
        if not text:
            notes.append("rejected an empty input")
        elif n > MAX_INPUT_WORDS:
            notes.append(f"rejected an input of {n} words (limit {MAX_INPUT_WORDS}): {text[:80]}")
        elif near_duplicate(text, known + fresh):
            notes.append(f"rejected a near-duplicate input: {text[:80]}")
        else:
            fresh.append(text)
    if not fresh:
        return [], notes
    ctx.render_ahead(fresh)
    ctx.count("review")
    reviewed = await ctx.writer.review(topic, fresh)
    accepted = []
    for i, text in enumerate(fresh):
        verdict = reviewed.get(i)
        if verdict is None or not verdict.relevant:
            notes.append(f"rejected as off topic or not depictable: {text[:80]}")
        elif not [c for c in verdict.checks if c.strip()]:
            notes.append(f"rejected (no checklist could be written): {text[:80]}")
        else:
            accepted.append({"input": text, "checks": [c.strip() for c in verdict.checks]})
    return accepted[:count], notes


async def node_inputs(
    ctx: ProbeContext,
    node: ProbeNode,
    *,
    round_index: int,
    count: int,
    parent: str | None,
    reflection: str | None,
) -> dict[str, Any]:
    """One journaled generation round of ``node``."""

    async def make() -> dict[str, Any]:
        accepted: list[dict[str, Any]] = []
        notes: list[str] = []
        avoid: list[str] = []
        for _ in range(ATTEMPTS):
            known = [t.input for t in node.tests] + [a["input"] for a in accepted]
            ctx.count("generate")
            candidates = await ctx.writer.inputs(
                node.topic,
                parent=parent,
                records=records(node),
                reflection=reflection,
                count=count - len(accepted),
                max_words=MAX_INPUT_WORDS,
                avoid=avoid,
            )
            got, why = await screen(ctx, node.topic, candidates, known, count - len(accepted))
            accepted += got
            notes += why
            avoid += [c for c in candidates if c not in {a["input"] for a in got}][:20]
            if len(accepted) >= count:
                break
        if len(accepted) < count:
            notes.append(f"round {round_index}: {len(accepted)} of {count} inputs were usable")
        return {"inputs": accepted, "notes": notes}

    return await ctx.step(f"{node.id}:inputs:{round_index}", make)
