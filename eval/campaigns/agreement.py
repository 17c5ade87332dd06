"""Agreement among annotators, and between the judge and the annotators.

Labels are given as ``units``: ``{unit: {annotator: value}}`` — a unit is an item (ratings:
the 1–5 value; votes: the winning side ``"a"``/``"b"`` in the item's own orientation, a
ranking being split into one unit per pair of outputs).

* :func:`alpha` — Krippendorff's α (:func:`eval.kit.stats.krippendorff_alpha`; ``interval``
  for ratings, ``nominal`` for votes).
* :func:`pairwise_rate` — the share of annotator pairs on the same unit who agree (ratings:
  exactly, and within one point), with a 95% bootstrap CI over units (units resampled, the
  rate recomputed as agreeing pairs / pairs).
* :func:`judge_vs_humans` — how often the judge matches the humans' majority (ratings: is
  within one point of their mean) next to how often one human matches the majority of the
  others (leave-one-out), both with bootstrap CIs over units.

Example:
    >>> units = {"i1": {"x": "a", "y": "a"}, "i2": {"x": "b", "y": "a"}}
    >>> pairwise_rate(units, n_boot=0)["rate"]
    0.5
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from eval.kit.stats.bootstrap import bootstrap_ci, rounded_ci
from eval.kit.stats.krippendorff import Level, krippendorff_alpha

Units = Mapping[str, Mapping[str, Any]]


def _code(value: Any) -> float:
    return {"a": 0.0, "b": 1.0, "tie": 0.5}[value] if isinstance(value, str) else float(value)


def alpha(units: Units, level: Level) -> float | None:
    """Krippendorff's α over ``units`` (None when undefined: no pairable variation)."""
    raters = sorted({a for per in units.values() for a in per})
    index = {r: j for j, r in enumerate(raters)}
    matrix = []
    for per in units.values():
        row: list[float | None] = [None] * len(raters)
        for who, v in per.items():
            row[index[who]] = _code(v)
        matrix.append(row)
    if not matrix:
        return None
    value = krippendorff_alpha(matrix, level)
    return None if np.isnan(value) else round(float(value), 4)


def _ratio(hits: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """Agreeing pairs / pairs of each resample (a row), ``nan`` where a resample has none."""
    t = totals.sum(axis=-1)
    return np.where(t > 0, hits.sum(axis=-1) / np.maximum(t, 1), np.nan)


def ratio_ci(hits: np.ndarray, totals: np.ndarray, n_boot: int, seed: int) -> list[float] | None:
    """The rounded 95% bootstrap interval of ``hits.sum() / totals.sum()``, units (rows)
    resampled; every resample with a pair counts (``min_valid=0``). None without draws or
    pairs."""
    if n_boot <= 0 or totals.sum() == 0:
        return None
    ci = bootstrap_ci(_ratio, hits, totals, n_boot=n_boot, seed=seed, vectorized=True, min_valid=0)
    return rounded_ci(ci)


def _rate(
    hits: Sequence[float], totals: Sequence[float], n_boot: int, seed: int
) -> dict[str, Any]:
    h, t = np.asarray(hits, float), np.asarray(totals, float)
    rate = float(h.sum() / t.sum()) if t.sum() else None
    return {
        "rate": None if rate is None else round(rate, 4),
        "ci95": ratio_ci(h, t, n_boot, seed),
        "pairs": int(t.sum()),
        "units": int((t > 0).sum()),
    }


def pairwise_rate(
    units: Units, *, within: float = 0.0, n_boot: int = 1000, seed: int = 0
) -> dict[str, Any]:
    """Share of same-unit annotator pairs whose values differ by at most ``within``."""
    hits, totals = [], []
    for per in units.values():
        vals = [_code(v) for v in per.values()]
        n = len(vals)
        if n < 2:
            continue
        agree = sum(
            1 for i in range(n) for j in range(i + 1, n) if abs(vals[i] - vals[j]) <= within
        )
        hits.append(agree)
        totals.append(n * (n - 1) / 2)
    return _rate(hits, totals, n_boot, seed)


def _majority(values: list[Any]) -> Any:
    top = Counter(values).most_common()
    if not top or (len(top) > 1 and top[0][1] == top[1][1]):
        return None  # no majority: such units are skipped
    return top[0][0]


def _matches(value: Any, others: list[Any], numeric: bool) -> float | None:
    if numeric:
        return float(abs(float(value) - float(np.mean(others))) <= 1.0)
    m = _majority(others)
    return None if m is None else float(value == m)


def judge_vs_humans(
    units: Units, judge: Mapping[str, Any], *, numeric: bool, n_boot: int = 1000, seed: int = 0
) -> dict[str, Any]:
    """Judge–human agreement and the human–human (leave-one-out) rate on the same units."""
    jh, jt, hh, ht = [], [], [], []
    for unit, per in units.items():
        vals = list(per.values())
        if unit in judge and judge[unit] is not None and vals:
            hit = _matches(judge[unit], vals, numeric)
            if hit is not None:
                jh.append(hit)
                jt.append(1.0)
        if len(vals) >= 2:
            scores = [_matches(v, vals[:i] + vals[i + 1 :], numeric) for i, v in enumerate(vals)]
            kept = [s for s in scores if s is not None]
            if kept and unit in judge:
                hh.append(sum(kept))
                ht.append(len(kept))
    rule = "within one point of the others' mean" if numeric else "same as the others' majority"
    return {
        "rule": rule,
        "judge_human": _rate(jh, jt, n_boot, seed),
        "human_human": _rate(hh, ht, n_boot, seed),
    }
