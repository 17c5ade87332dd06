"""Failure localisation (the paper's Algorithm 1) over scene-graph atoms.

Start from a failing input's atoms ``c0``. A queue holds pairs (part being split ``c``, part
held fixed ``l``). Each ``c`` with more than one atom is split in two (:func:`split`: relations
first, then nodes); both ``c1 ∪ l`` and ``c2 ∪ l`` are rendered and judged. A failing half is
split further with the same ``l``; when both halves pass, the failure needs something of both, so
each half is split while the other is held fixed. The queue is processed in waves — every pair
of a wave is independent, so a wave's renders run concurrently — and stops at ``max_tests``.
The minimal failing sub-prompts are the failing tested sets no other failing set is inside.

The test function is injected, so this module neither renders nor judges; so is the way a set
of atoms reads as text (``text``: :func:`~eval.probing.scene_graph.compose` for prompts, the
edit steps' composer for editor probes).

Example:
    >>> import asyncio
    >>> g = SceneGraph.model_validate({"entities": [
    ...     {"name": "giraffe", "attributes": ["purple"]}, {"name": "tree", "attributes": []}]})
    >>> async def fake(text: str, checks: list[str]) -> tuple[bool, float, list[str]]:
    ...     ok = "purple" not in text
    ...     return ok, float(ok), []
    >>> out = asyncio.run(localise(g, fake, max_tests=8))
    >>> out.minimal_failing
    ['A purple giraffe.']
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field

from eval.probing.scene_graph import SceneGraph, all_atoms, checks_for, closure, compose, split

TestFn = Callable[[str, list[str]], Awaitable[tuple[bool | None, float | None, list[str]]]]
"""``(prompt, checks) -> (passed or None when unlabelled, pass rate, image refs)``."""


@dataclass
class Tested:
    """One sub-prompt's outcome."""

    atoms: frozenset[str]
    prompt: str
    passed: bool | None
    pass_rate: float | None
    images: list[str] = field(default_factory=list)


@dataclass
class Localisation:
    """Every sub-prompt tested, the minimal failing ones, and whether the budget ran out."""

    tested: list[Tested]
    minimal_failing: list[str]
    exhausted: bool = False


def minimal(records: list[Tested], g: SceneGraph) -> list[str]:
    """Prompts of failing records that contain no other failing record (by closed atoms)."""
    failing = [(closure(g, r.atoms), r.prompt) for r in records if r.passed is False]
    out: list[str] = []
    for atoms, prompt in failing:
        if not any(other < atoms for other, _ in failing) and prompt not in out:
            out.append(prompt)
    return out


Composer = Callable[[SceneGraph, Iterable[str]], str]
"""``(graph, atoms) -> text``: how a set of atoms reads as an input."""


async def localise(
    g: SceneGraph, test: TestFn, *, max_tests: int = 12, text: Composer = compose
) -> Localisation:
    """Run the localisation of one failing input whose scene graph is ``g``; ``text`` reads a
    set of atoms as an input."""
    as_text = text
    c0 = all_atoms(g)
    seen: dict[str, Tested] = {as_text(g, c0): Tested(c0, as_text(g, c0), False, None)}
    tested: list[Tested] = [seen[as_text(g, c0)]]
    queue: list[tuple[frozenset[str], frozenset[str]]] = [(c0, frozenset())]
    done_pairs: set[tuple[frozenset[str], frozenset[str]]] = set()
    budget = max_tests
    exhausted = False
    while queue:
        wave = [p for p in dict.fromkeys(queue) if p not in done_pairs and len(p[0]) > 1]
        queue = []
        plans = []
        wanted: dict[str, frozenset[str]] = {}
        for c, held in wave:
            c1, c2 = split(g, c)
            plans.append((c, held, c1, c2))
            for half in (c1 | held, c2 | held):
                phrase = as_text(g, half)
                if phrase not in seen:
                    wanted.setdefault(phrase, half)
        if len(wanted) > budget:
            exhausted = True
            break
        budget -= len(wanted)
        outcomes = await asyncio.gather(
            *(test(phrase, checks_for(g, atoms)) for phrase, atoms in wanted.items())
        )
        for (phrase, atoms), (passed, rate, images) in zip(wanted.items(), outcomes, strict=True):
            seen[phrase] = Tested(atoms, phrase, passed, rate, images)
            tested.append(seen[phrase])
        for c, held, c1, c2 in plans:
            done_pairs.add((c, held))
            r1, r2 = seen[as_text(g, c1 | held)], seen[as_text(g, c2 | held)]
            if r1.passed is False:
                queue.append((c1, held))
            if r2.passed is False:
                queue.append((c2, held))
            if r1.passed and r2.passed:
                queue += [(c1, c2 | held), (c2, c1 | held)]
    return Localisation(tested, minimal(tested, g), exhausted)
