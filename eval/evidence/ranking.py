"""Kendall's tau-b between two rankings (ties allowed), written out from its definition.

tau_b = (C - D) / sqrt((n0 - n1) * (n0 - n2)) with C/D the concordant/discordant pairs,
n0 = n(n-1)/2, n1/n2 the pairs tied in the first/second ranking.

Example:
    >>> kendall_tau_b([1, 2, 3, 4], [1, 3, 2, 4])
    0.6667
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float | None:
    """tau-b of paired values (``None`` when either side is constant or fewer than 2)."""
    if len(x) != len(y):
        raise ValueError(f"rankings of different lengths ({len(x)} and {len(y)})")
    concordant = discordant = tied_x = tied_y = 0
    for i, j in combinations(range(len(x)), 2):
        dx, dy = x[i] - x[j], y[i] - y[j]
        if dx == 0:
            tied_x += 1
        if dy == 0:
            tied_y += 1
        if dx and dy:
            if (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    n0 = len(x) * (len(x) - 1) // 2
    denom = math.sqrt((n0 - tied_x) * (n0 - tied_y))
    return None if denom == 0 else round((concordant - discordant) / denom, 4)


def positions(ranking: Sequence[str], models: Sequence[str]) -> list[float]:
    """Rank positions (1 = best) of ``models`` in ``ranking``."""
    where = {m: k for k, m in enumerate(ranking, start=1)}
    return [float(where[m]) for m in models]
