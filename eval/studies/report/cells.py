"""Cells, per-primitive rates and exclusion counts of a study report.

A *cell* is one prompter × backend × category (``OE``, ``CO``, ``IM`` or ``all``) over the items
that were aggregated (status ``scored`` or ``partial``). Each of the four measures gets its mean
over the cell's tasks (tasks where the measure is null are left out of that measure) and a
bootstrap 95% interval over the tasks (:func:`eval.studies.report.stats.boot_means` over the
category's tasks in sorted id order, see :func:`build_cells`).
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


def categories_of(items: Sequence[Item]) -> list[str]:
    """The categories present in the study (in OE, CO, IM order) plus ``all``."""
    present = {it.category for it in items}
    return [c for c in CATEGORIES if c in present] + [ALL]


def tasks_of(items: Sequence[Item], category: str) -> list[str]:
    """The study's task ids of ``category`` (every status counts), sorted: the bootstrap units."""
    return sorted({it.task_id for it in items if category in (ALL, it.category)})


def measure_grid(
    items: Sequence[Item], category: str, pairs: Sequence[tuple[str, str]]
) -> tuple[np.ndarray, np.ndarray]:
    """(tasks, pairs, 4) measures of the aggregated items (nan = none) and items per pair."""
    tasks = tasks_of(items, category)
    ti = {t: i for i, t in enumerate(tasks)}
    pi = {pair: k for k, pair in enumerate(pairs)}
    x = np.full((len(tasks), len(pairs), len(MEASURES)), np.nan)
    n = np.zeros(len(pairs), dtype=int)
    for it in items:
        k = pi.get((it.prompter, it.backend))
        if it.status in AGGREGATED and k is not None and category in (ALL, it.category):
            x[ti[it.task_id], k] = [
                np.nan if it.values[m] is None else it.values[m] for m in MEASURES
            ]
            n[k] += 1
    return x, n


def build_cells(
    items: Sequence[Item],
    *,
    n_boot: int,
    seed: int | None,
    prompters: Sequence[str] | None = None,
    backends: Sequence[str] | None = None,
) -> list[dict]:
    """Every prompter × backend × category cell, in prompter, backend, category order.

    The bootstrap of a category draws its tasks (those of :func:`tasks_of`) with replacement,
    the same draws for every prompter × backend; a drawn task without an aggregated item for a
    cell adds nothing to that cell's resampled mean.
    """
    prompters = list(prompters or dict.fromkeys(it.prompter for it in items))
    backends = list(backends or dict.fromkeys(it.backend for it in items))
    pairs = [(p, b) for p in prompters for b in backends]
    cats = categories_of(items)
    found: dict[tuple[str, str, str], dict] = {}
    for c in cats:
        x, n = measure_grid(items, c, pairs)
        means, ci = boot_means(x.reshape(x.shape[0], -1), n_boot, seed)
        means = means.reshape(len(pairs), len(MEASURES))
        ci = ci.reshape(len(pairs), len(MEASURES), 2)
        for k, (p, b) in enumerate(pairs):
            out: dict = {"prompter": p, "backend": b, "category": c, "n_tasks": int(n[k])}
            for j, key in enumerate(MEASURES):
                lo, hi = _r(ci[k, j, 0]), _r(ci[k, j, 1])
                out[key] = {"mean": _r(means[k, j]), "ci95": None if lo is None else [lo, hi]}
            found[(p, b, c)] = out
    return [found[(p, b, c)] for p, b in pairs for c in cats]


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
