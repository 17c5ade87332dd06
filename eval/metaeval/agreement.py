"""Agreement among human raters: Krippendorff's α and a leave-one-out human baseline.

* :func:`krippendorff_alpha` -- α from the coincidence matrix (Krippendorff 2011, "Computing
  Krippendorff's Alpha-Reliability") for nominal, ordinal, interval and ratio data, any number
  of raters, missing ratings allowed.
* :func:`human_baseline` -- "each rater against the mean of the others", scored with the same
  metrics as the judge (:func:`eval.metaeval.stats.regression_metrics`).
* :func:`inter_rater` -- α (interval and ordinal) plus counts, from ``{item: {rater: score}}``.

>>> data = [[1, 1, None], [2, 2, 2], [3, 3, 3], [4, 4, 4]]   # units x raters
>>> krippendorff_alpha(data, "interval")
1.0
>>> round(krippendorff_alpha([[1, 2], [2, 2], [3, 3]], "interval"), 3)  # 1 - 5 * 2 / 34
0.706
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Literal

import numpy as np

from eval.metaeval.stats import _clean, regression_metrics

__all__ = ["human_baseline", "inter_rater", "krippendorff_alpha"]

Level = Literal["nominal", "ordinal", "interval", "ratio"]


def _matrix(ratings: Sequence[Sequence[float | None]] | np.ndarray) -> np.ndarray:
    rows = [[np.nan if v is None else float(v) for v in row] for row in ratings]
    if not rows:
        return np.empty((0, 0))
    width = {len(r) for r in rows}
    if len(width) != 1:
        raise ValueError("ratings must be a rectangular units x raters matrix (None = missing)")
    return np.array(rows, dtype=float)


def _delta2(values: np.ndarray, n_c: np.ndarray, level: str) -> np.ndarray:
    """Squared distance δ²(c, k) between every pair of observed values."""
    c, k = values[:, None], values[None, :]
    if level == "nominal":
        return (c != k).astype(float)
    if level == "interval":
        return (c - k) ** 2
    if level == "ratio":
        with np.errstate(invalid="ignore", divide="ignore"):
            d = np.where(c + k == 0, 0.0, (c - k) / np.where(c + k == 0, 1.0, c + k))
        return d**2
    if level == "ordinal":
        # δ²(c, k) = (Σ_{g=c..k} n_g - (n_c + n_k) / 2)², values in rank order.
        idx = np.arange(len(n_c))
        lo, hi = np.minimum.outer(idx, idx), np.maximum.outer(idx, idx)
        between = np.cumsum(n_c)[hi] - np.cumsum(n_c)[lo] + n_c[lo]
        return (between - (n_c[lo] + n_c[hi]) / 2) ** 2
    raise ValueError(f"unknown level {level!r}; expected nominal, ordinal, interval or ratio")


def krippendorff_alpha(
    ratings: Sequence[Sequence[float | None]] | np.ndarray,
    level: Level = "interval",
) -> float:
    """Krippendorff's α for a ``units x raters`` matrix (``None``/``nan`` = missing).

    Coincidence-matrix formulation: every unit ``u`` with ``m_u >= 2`` ratings contributes
    each ordered pair of its ratings (from different raters) with weight ``1 / (m_u - 1)`` to
    ``o[c, k]``; ``n_c = Σ_k o[c, k]``, ``n = Σ_c n_c`` (the pairable ratings) and

        α = 1 - (n - 1) Σ o[c, k] δ²(c, k) / Σ n_c n_k δ²(c, k).

    ``δ²`` is ``[c != k]`` (nominal), ``(c - k)²`` (interval), ``((c - k) / (c + k))²``
    (ratio) or, for ordinal data, ``(Σ_{g=c..k} n_g - (n_c + n_k) / 2)²`` over the observed
    values in rank order (so it depends on how often each value was used).

    Edge cases: units with fewer than 2 ratings are ignored (they are not pairable). If no
    unit is pairable, or all pairable ratings share one value (no variation, so expected
    disagreement is 0), α is undefined and ``nan`` is returned -- we do *not* report 1.0
    for data that cannot show disagreement. With variation and no disagreement α is 1.0.

    >>> round(krippendorff_alpha([[1, 1], [2, 1], [3, 3]], "nominal"), 3)  # 1 - 5 * 2 / 22
    0.545
    >>> math.isnan(krippendorff_alpha([[2, 2], [2, 2]]))
    True
    """
    m = _matrix(ratings)
    if m.size == 0:
        return float("nan")
    present = np.isfinite(m)
    per_unit = present.sum(axis=1)
    m, present, per_unit = m[per_unit >= 2], present[per_unit >= 2], per_unit[per_unit >= 2]
    if m.shape[0] == 0:
        return float("nan")
    values, inverse = np.unique(m[present], return_inverse=True)
    # counts[u, v]: how many raters gave value v to unit u
    counts = np.zeros((m.shape[0], len(values)))
    unit_of = np.nonzero(present)[0]
    np.add.at(counts, (unit_of, inverse), 1.0)
    w = 1.0 / (per_unit - 1.0)
    o = (counts * w[:, None]).T @ counts - np.diag((counts * w[:, None]).sum(axis=0))
    n_c = o.sum(axis=1)
    n = n_c.sum()
    d2 = _delta2(values, n_c, level)
    expected = float(np.sum(np.outer(n_c, n_c) * d2))
    if expected <= 0 or n <= 1:
        return float("nan")
    observed = float(np.sum(o * d2))
    return float(1.0 - (n - 1.0) * observed / expected)


def _clean_ratings(
    ratings_by_item: Mapping[Hashable, Mapping[Hashable, float | None]],
) -> dict[Hashable, dict[Hashable, float]]:
    out: dict[Hashable, dict[Hashable, float]] = {}
    for item, by_rater in ratings_by_item.items():
        kept = {
            r: float(v) for r, v in by_rater.items() if v is not None and math.isfinite(float(v))
        }
        if kept:
            out[item] = kept
    return out


def human_baseline(
    ratings_by_item: Mapping[Hashable, Mapping[Hashable, float | None]],
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
    items: list[Hashable] = []
    by_rater: dict[Hashable, tuple[list[float], list[float]]] = {}
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
    per_rater: dict[Hashable, float] = {}
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
    ratings_by_item: Mapping[Hashable, Mapping[Hashable, float | None]],
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
