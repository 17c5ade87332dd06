"""Do the backends rank the prompters alike? Kendall's W and pairwise Spearman per measure.

For each measure the prompters' means over all tasks (the ``all`` cells) form a prompters ×
backends table; every backend ranks the prompters (ties share the average rank). Kendall's W
(0 = no agreement, 1 = identical rankings) is computed with the ties correction, and its
chi-square p-value tests "no agreement". Prompters without a value on some backend are left out
(and listed). With one backend, or fewer than two prompters, W is null with a reason.
``spearman`` holds Spearman's rho of the prompters' means for every pair of backends.
``by_category`` repeats W and its test on each category's cells (OE, CO, IM: does the ranking
hold within a kind of task, not only overall).

Example:
    >>> cells = [{"prompter": p, "backend": b, "category": "all",
    ...           "subjective_prompt": {"mean": v}} for p, b, v in
    ...          [("x", "b1", 3.0), ("y", "b1", 2.0), ("x", "b2", 4.0), ("y", "b2", 1.0)]]
    >>> ranking_consistency(cells, measures=("subjective_prompt",))["subjective_prompt"]["w"]
    1.0
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np

from eval.studies.report.load import MEASURES
from eval.studies.report.stats import kendall_w, spearman


def _r(x: float | None, nd: int = 4) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), nd)


def table(
    cells: Sequence[dict], measure: str, category: str = "all"
) -> tuple[list[str], list[str], np.ndarray]:
    """Prompters, backends and the (prompters × backends) means of ``measure`` in
    ``category`` (nan = none)."""
    rows = [c for c in cells if c["category"] == category]
    prompters = list(dict.fromkeys(c["prompter"] for c in rows))
    backends = list(dict.fromkeys(c["backend"] for c in rows))
    grid = np.full((len(prompters), len(backends)), np.nan)
    for c in rows:
        v = (c.get(measure) or {}).get("mean")
        if v is not None:
            grid[prompters.index(c["prompter"]), backends.index(c["backend"])] = v
    return prompters, backends, grid


def one_measure(cells: Sequence[dict], measure: str, category: str = "all") -> dict:
    """W, its test and the pairwise Spearman table of one measure (in one category)."""
    prompters, all_backends, grid = table(cells, measure, category)
    has_b = np.isfinite(grid).any(axis=0)
    backends = [b for b, k in zip(all_backends, has_b, strict=True) if k]
    grid = grid[:, has_b]
    full = np.isfinite(grid).all(axis=1)
    kept = [p for p, k in zip(prompters, full, strict=True) if k]
    left_out = [p for p, k in zip(prompters, full, strict=True) if not k]
    grid = grid[full]
    res = kendall_w(grid)
    reason = res["reason"]
    if reason and len(backends) < 2 <= len(all_backends):
        # the study has the backends; this measure has no values on some of them here
        reason = (
            f"{measure} has values on {len(backends)} of the study's {len(all_backends)} "
            f"backends in category {category}"
            + (": IM tasks get no subjective image scores"
               if measure == "subjective_image" and category == "IM" else "")
        )
    out = {
        "w": _r(res["w"]),
        "chi2": _r(res.get("chi2")),
        "df": res.get("df"),
        "p_value": _r(res.get("p_value"), 6),
        "reason": reason,
        "n_prompters": len(kept),
        "n_backends": len(backends),
        "backends": backends,
        "left_out": left_out,
        "spearman": [],
    }
    for i, j in combinations(range(len(backends)), 2):
        sp = spearman(grid[:, i], grid[:, j])
        out["spearman"].append(
            {"a": backends[i], "b": backends[j], "rho": _r(sp["rho"]), "reason": sp["reason"]}
        )
    return out


def ranking_consistency(cells: Sequence[dict], measures: Sequence[str] = MEASURES) -> dict:
    """Per measure: Kendall's W of the backends' rankings of the prompters, and Spearman pairs;
    W per category under ``by_category``."""
    categories = sorted({c["category"] for c in cells} - {"all"})
    out = {}
    for m in measures:
        out[m] = one_measure(cells, m)
        out[m]["by_category"] = {
            cat: {
                k: v
                for k, v in one_measure(cells, m, cat).items()
                if k in ("w", "p_value", "reason", "n_prompters", "n_backends")
            }
            for cat in categories
        }
    return out
