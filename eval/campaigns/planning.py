"""Which pairs to ask about, and which task an annotator gets next.

* :func:`pair_plan` — a balanced design over the outputs of one prompt: every pair when
  there are few models, else a circulant design (each model in the same number of pairs),
  rotated by prompt; the ``a`` side alternates so every model is ``a`` about half the time.
* :func:`choose_item` — the next item for an annotator: one they have not seen whose
  planned votes (answered or being answered) are furthest below ``target``; once every item
  has its target, up to ``extra`` more votes go where the votes so far disagree most. (The
  service applies the first rule in Redis, ``api/campaigns/lua/next.lua``, reading the
  least-voted items off a sorted set; this function is the rule in full, used by the service
  for the extra votes.)

Example:
    >>> pair_plan(["x", "y", "z"])
    [('x', 'y'), ('z', 'x'), ('y', 'z')]
    >>> import random
    >>> choose_item({"i1": 2, "i2": 0}, seen=set(), target=3, rng=random.Random(0))
    'i2'
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence


def pair_plan(
    models: Sequence[str], per_model: int | None = None, rotation: int = 0
) -> list[tuple[str, str]]:
    """Pairs ``(a, b)`` of ``models`` for one prompt.

    ``per_model`` None (or ≥ k-1) gives all k(k-1)/2 pairs; otherwise each model meets its
    ``ceil(per_model / 2)`` next neighbours on a circle (rotated by ``rotation``), so each
    takes part in the same number of pairs. Orientation alternates along the list.
    """
    k = len(models)
    if k < 2:
        return []
    order = list(models[rotation % k :]) + list(models[: rotation % k])
    if per_model is None or per_model >= k - 1:
        pairs = list(itertools.combinations(order, 2))
    else:
        steps = max(1, (per_model + 1) // 2)
        seen: set[frozenset[str]] = set()
        pairs = []
        for step in range(1, steps + 1):
            for i in range(k):
                pair = (order[i], order[(i + step) % k])
                if frozenset(pair) not in seen:
                    seen.add(frozenset(pair))
                    pairs.append(pair)
    return [(a, b) if n % 2 == 0 else (b, a) for n, (a, b) in enumerate(pairs)]


def disagreement(outcomes: Sequence[str | float]) -> float:
    """How split the answers are: the minority share for votes, the spread for ratings.

    >>> disagreement(["a", "a", "b"]), disagreement([4, 4])
    (0.33333333333333337, 0.0)
    """
    if len(outcomes) < 2:
        return 0.0
    if all(isinstance(o, str) for o in outcomes):
        counts = [outcomes.count(o) for o in set(outcomes)]
        return 1.0 - max(counts) / len(outcomes)
    values = [float(o) for o in outcomes]
    mean = sum(values) / len(values)
    return (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5 / 2.0


def choose_item(
    planned: Mapping[str, int],
    *,
    seen: set[str],
    target: int,
    rng: random.Random,
    extra: int = 0,
    outcomes: Mapping[str, Sequence[str | float]] | None = None,
) -> str | None:
    """The item to serve next, or None when this annotator has nothing left.

    ``planned[item]`` counts votes answered or in progress. Items below ``target`` come first
    (fewest first, random among equals); then, with ``extra``, the most disputed items below
    ``target + extra`` (only where the answers actually disagree).
    """
    open_items = [i for i, n in planned.items() if n < target and i not in seen]
    if open_items:
        low = min(planned[i] for i in open_items)
        return rng.choice(sorted(i for i in open_items if planned[i] == low))
    if extra <= 0 or not outcomes:
        return None
    scored = [
        (disagreement(outcomes.get(i, ())), -n, i)
        for i, n in planned.items()
        if n < target + extra and i not in seen
    ]
    scored = [s for s in scored if s[0] > 0]
    return max(scored)[2] if scored else None


def shown_order(n: int, rng: random.Random) -> list[int]:
    """A random display order of ``n`` outputs (left/right for a pair)."""
    order = list(range(n))
    rng.shuffle(order)
    return order
