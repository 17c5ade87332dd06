"""``--limit N --seed S``: which items a shortened run scores.

A dataset that names ``strata`` (slice keys, e.g. a public set's ``model`` and ``level``) gets
a stratified subset: the items of each stratum are shuffled by the seed, and items are then
taken in the order of their relative position within their stratum, so any ``N`` keeps the
strata in proportion (a stratum of a third of the items gives a third of the subset, ± 1).
Other datasets keep their first ``N`` items, as ``--limit`` always did. The subset depends
only on the items, ``N`` and the seed, so a resumed run scores the same items again.

Example:
    >>> from eval.datasets.base import EvalItem
    >>> from pathlib import Path
    >>> items = [EvalItem(f"{m}{k}", {}, Path("."), slices={"model": m})
    ...          for m in "ab" for k in range(4)]
    >>> sorted(i.slices["model"] for i in stratified(items, 4, seed=0, strata=("model",)))
    ['a', 'a', 'b', 'b']
    >>> [i.id for i in stratified(items, 2, seed=0, strata=())]
    ['a0', 'a1']
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence

from eval.datasets.base import EvalItem


def stratified(
    items: list[EvalItem], limit: int | None, *, seed: int, strata: Sequence[str]
) -> list[EvalItem]:
    """At most ``limit`` items, in proportion to the strata (the first ones without strata),
    kept in the dataset's own order."""
    if not limit or limit >= len(items):
        return list(items)
    if limit < 0:
        raise ValueError(f"--limit must be positive, got {limit}")
    if not strata:
        return list(items[:limit])
    groups: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for n, item in enumerate(items):
        groups[tuple(item.slices.get(k, "") for k in strata)].append(n)
    rng = random.Random(seed)
    ranked: list[tuple[float, float, int]] = []
    for key in sorted(groups):
        members = groups[key]
        rng.shuffle(members)
        for pos, n in enumerate(members):
            ranked.append(((pos + 0.5) / len(members), rng.random(), n))
    chosen = sorted(n for _, _, n in sorted(ranked)[:limit])
    return [items[n] for n in chosen]
