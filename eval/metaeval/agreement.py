"""Agreement among human raters: Krippendorff's α and a leave-one-out human baseline.

α itself is the kit's (:func:`eval.kit.stats.krippendorff_alpha`); this module applies it.

* :func:`human_baseline` -- "each rater against the mean of the others", scored with the same
  metrics as the judge (:func:`eval.metaeval.stats.regression_metrics`).
* :func:`inter_rater` -- α (interval and ordinal) plus counts, from ``{item: {rater: score}}``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from eval.kit.stats.krippendorff import krippendorff_alpha
from eval.metaeval.stats import _clean, regression_metrics

__all__ = ["human_baseline", "inter_rater"]


def _clean_ratings(
    ratings_by_item: Mapping[str, Mapping[str, float | None]],
) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for item, by_rater in ratings_by_item.items():
        kept = {
            r: float(v) for r, v in by_rater.items() if v is not None and math.isfinite(float(v))
        }
        if kept:
            out[item] = kept
    return out


def human_baseline(
    ratings_by_item: Mapping[str, Mapping[str, float | None]],
    *,
    n_boot: int = 1000,
    seed: int | None = 0,
    min_rater_items: int = 5,
) -> dict[str, Any]:
    """Human ceiling: each rater against the mean of the *other* raters.

    Pooling: for every item with at least 2 (non-missing) ratings and every rater ``r`` of
    that item we form one pair ``(score of r, mean of the other raters' scores on the item)``.
    All such (item, rater) pairs are pooled into one sample -- an item rated by 3 raters gives
    3 pairs -- and scored with :func:`eval.metaeval.stats.regression_metrics` (rater score in the
    role of the prediction), so MAE, within-1 and the correlations are over pairs and ``n`` is
    the number of pairs. Because pairs of one item are dependent, the bootstrap resamples
    *items* (all pairs of a drawn item together), not pairs.

    Note the leave-one-out reference averages one rater fewer than the all-rater mean the judge
    is compared with, which makes the baseline slightly conservative.

    Extra keys: ``per_rater_spearman`` (rater -> Spearman ρ of that rater's scores against the
    leave-one-out means over the items they rated, for raters with ``>= min_rater_items``
    such items and a defined ρ), ``per_rater_spearman_median`` (median of those, ``None`` if
    no rater qualifies), ``items`` (items with >= 2 ratings), ``raters`` (raters with >= 1
    pair) and ``pairs`` (= ``n``).

    >>> ratings = {"i1": {"a": 1, "b": 2, "c": 3}, "i2": {"a": 4, "b": 4}, "i3": {"a": 5}}
    >>> hb = human_baseline(ratings, n_boot=0)
    >>> hb["pairs"], hb["items"], round(hb["mae"], 3), hb["within1"]
    (5, 2, 0.6, 0.6)
    """
    clean = _clean_ratings(ratings_by_item)
    scores: list[float] = []
    loo: list[float] = []
    items: list[str] = []
    by_rater: dict[str, tuple[list[float], list[float]]] = {}
    for item, rs in clean.items():
        if len(rs) < 2:
            continue
        total = sum(rs.values())
        for rater, v in rs.items():
            ref = (total - v) / (len(rs) - 1)
            scores.append(v)
            loo.append(ref)
            items.append(item)
            mine, refs = by_rater.setdefault(rater, ([], []))
            mine.append(v)
            refs.append(ref)

    out = regression_metrics(scores, loo, n_boot=n_boot, seed=seed, clusters=items)
    per_rater: dict[str, float] = {}
    for rater, (mine, refs) in by_rater.items():
        if len(mine) < min_rater_items:
            continue
        rho = regression_metrics(mine, refs, n_boot=0)["spearman"]
        if rho is not None:
            per_rater[rater] = rho
    out["per_rater_spearman"] = per_rater
    out["per_rater_spearman_median"] = (
        _clean(float(np.median(list(per_rater.values())))) if per_rater else None
    )
    out["items"] = len(set(items))
    out["raters"] = len(by_rater)
    out["pairs"] = len(scores)
    return out


def inter_rater(
    ratings_by_item: Mapping[str, Mapping[str, float | None]],
) -> dict[str, Any]:
    """Inter-rater reliability of ``{item: {rater: score}}`` (missing ratings allowed).

    Returns ``alpha_interval`` and ``alpha_ordinal`` (:func:`krippendorff_alpha`; ``None``
    when undefined), ``raters`` (distinct raters), ``items`` (items with at least one
    rating), ``pairable_items`` (items with at least two) and ``ratings`` (non-missing
    ratings).

    >>> r = inter_rater({"x": {"a": 1, "b": 1}, "y": {"a": 3, "b": 3}, "z": {"a": 5}})
    >>> r["alpha_interval"], r["raters"], r["items"], r["pairable_items"], r["ratings"]
    (1.0, 2, 3, 2, 5)
    """
    clean = _clean_ratings(ratings_by_item)
    raters = sorted({r for rs in clean.values() for r in rs}, key=str)
    col = {r: j for j, r in enumerate(raters)}
    matrix = np.full((len(clean), len(raters)), np.nan)
    for i, rs in enumerate(clean.values()):
        for r, v in rs.items():
            matrix[i, col[r]] = v
    return {
        "alpha_interval": _clean(krippendorff_alpha(matrix, "interval")),
        "alpha_ordinal": _clean(krippendorff_alpha(matrix, "ordinal")),
        "raters": len(raters),
        "items": len(clean),
        "pairable_items": sum(1 for rs in clean.values() if len(rs) >= 2),
        "ratings": sum(len(rs) for rs in clean.values()),
    }
