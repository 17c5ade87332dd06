"""Rankings as numbers, for Kendall's τ-b (:func:`eval.kit.stats.kendall_tau_b`).

Example:
    >>> positions(["b", "a", "c"], ["a", "b", "c"])
    [2.0, 1.0, 3.0]
    >>> shown_tau([1, 2, 3, 4], [1, 3, 2, 4]), shown_tau([1, 1], [1, 2])
    (0.6667, None)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from eval.kit.stats.kendall import kendall_tau_b


def shown_tau(x: Sequence[float], y: Sequence[float]) -> float | None:
    """τ-b as the report shows it: rounded to 4 places, ``None`` when undefined."""
    tau = kendall_tau_b(x, y)
    return None if math.isnan(tau) else round(tau, 4)


def positions(ranking: Sequence[str], models: Sequence[str]) -> list[float]:
    """Rank positions (1 = best) of ``models`` in ``ranking``."""
    where = {m: k for k, m in enumerate(ranking, start=1)}
    return [float(where[m]) for m in models]
