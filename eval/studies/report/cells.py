"""Cells, per-primitive rates and exclusion counts of a study report.

A *cell* is one prompter × backend × category (``OE``, ``CO``, ``IM`` or ``all``) over the items
that were aggregated (status ``scored`` or ``partial``). Each of the four measures gets its mean
over the cell's tasks (tasks where the measure is null are left out of that measure) and a
bootstrap 95% interval over the tasks (:func:`eval.studies.report.stats.boot_means`; tasks are
taken in sorted id order, so the resamples depend only on the cell's size and the seed).
Categories no task of the study has are left out; a category the study has but a prompter ×
backend lost entirely (all excluded) is a cell with ``n_tasks`` 0 and null values.

Example:
    >>> from eval.studies.report.load import Item
    >>> it = Item("t1", "OE", "p", "b", "scored", None, None, None,
    ...           {"subjective_prompt": 4.0, "subjective_image": None,
    ...            "objective_prompt_rate": 50.0, "objective_image_rate": 100.0}, [], 1)
    >>> cell = build_cells([it], n_boot=10, seed=0)[0]
    >>> cell["category"], cell["n_tasks"], cell["subjective_prompt"]
    ('OE', 1, {'mean': 4.0, 'ci95': [4.0, 4.0]})
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np

from eval.studies.report.load import AGGREGATED, CATEGORIES, EXCLUDED, MEASURES, Item
from eval.studies.report.stats import boot_means

ALL = "all"


def _r(x: float, nd: int = 4) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), nd)


def measure_block(items: Sequence[Item]) -> np.ndarray:
    """(n, 4) array of the measures of ``items`` in task order (nan = null)."""
    rows = sorted(items, key=lambda it: it.task_id)
    return np.array(
        [[np.nan if it.values[k] is None else it.values[k] for k in MEASURES] for it in rows],
        dtype=float,
    ).reshape(len(rows), len(MEASURES))


def categories_of(items: Sequence[Item]) -> list[str]:
    """The categories present in the study (in OE, CO, IM order) plus ``all``."""
    present = {it.category for it in items}
    return [c for c in CATEGORIES if c in present] + [ALL]


def cell(prompter: str, backend: str, category: str, items: Sequence[Item], **boot) -> dict:
    """One cell (DESIGN.md §10 shape) from the aggregated items of that cell."""
    x = measure_block(items)
    means, ci = boot_means(x, **boot)
    out: dict = {"prompter": prompter, "backend": backend, "category": category}
    out["n_tasks"] = len(items)
    for j, key in enumerate(MEASURES):
        lo, hi = _r(ci[j, 0]), _r(ci[j, 1])
        out[key] = {"mean": _r(means[j]), "ci95": None if lo is None else [lo, hi]}
    return out


def build_cells(
    items: Sequence[Item],
    *,
    n_boot: int,
    seed: int | None,
    prompters: Sequence[str] | None = None,
    backends: Sequence[str] | None = None,
) -> list[dict]:
    """Every prompter × backend × category cell, in prompter, backend, category order."""
    prompters = list(prompters or dict.fromkeys(it.prompter for it in items))
    backends = list(backends or dict.fromkeys(it.backend for it in items))
    cats = categories_of(items)
    groups: dict[tuple[str, str], list[Item]] = defaultdict(list)
    for it in items:
        if it.status in AGGREGATED:
            groups[(it.prompter, it.backend)].append(it)
    cells = []
    for p in prompters:
        for b in backends:
            mine = groups.get((p, b), [])
            for c in cats:
                sel = mine if c == ALL else [it for it in mine if it.category == c]
                cells.append(cell(p, b, c, sel, n_boot=n_boot, seed=seed))
    return cells


def per_primitive(items: Sequence[Item]) -> list[dict]:
    """Prompt and image satisfaction (%) per prompter × backend × primitive, over checks.

    Rates pool the checks of the aggregated items (a check with a null verdict on one side is
    left out of that side); ``n_prompt`` / ``n_image`` count the checks behind each rate.
    """
    tally: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for it in items:
        if it.status not in AGGREGATED:
            continue
        for chk in it.checks:
            prim = str(chk.get("primitive") or "unassigned")
            t = tally[(it.prompter, it.backend, prim)]
            for side, (hit, n) in (("prompt", (0, 1)), ("image", (2, 3))):
                v = chk.get(side)
                if isinstance(v, bool):
                    t[hit] += v
                    t[n] += 1
    rows = []
    for (p, b, prim), (ph, pn, ih, in_) in sorted(tally.items()):
        rows.append(
            {
                "prompter": p,
                "backend": b,
                "primitive": prim,
                "prompt_rate": _r(100.0 * ph / pn, 2) if pn else None,
                "image_rate": _r(100.0 * ih / in_, 2) if in_ else None,
                "n_prompt": pn,
                "n_image": in_,
            }
        )
    return rows


def excluded(items: Sequence[Item]) -> dict:
    """Counts of the items left out of every aggregate, by status and by status → reason."""
    out = [it for it in items if it.status in EXCLUDED]
    by_reason: dict[str, Counter] = defaultdict(Counter)
    for it in out:
        by_reason[it.status][it.reason or "unspecified"] += 1
    return {
        "total": len(out),
        "aggregated": sum(it.status in AGGREGATED for it in items),
        "by_status": {s: n for s in EXCLUDED if (n := sum(it.status == s for it in out))},
        "by_reason": {s: dict(sorted(c.items())) for s, c in sorted(by_reason.items())},
    }
