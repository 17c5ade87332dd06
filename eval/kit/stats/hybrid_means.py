"""Hybrid mean ratings: each group's mean human rating from human ratings on some items and
judge scores on all of them (prediction-powered, :func:`eval.kit.stats.ppi.ppi_mean`).

A group is a model, a prompter, a backend: whatever the rows name. An item rated by several
people counts once, with their mean rating. Items with a judge score but no human rating are
the judge-only set; items with a human rating but no judge score cannot be used (the judge
must score every item) and are counted in ``human_without_judge``. The estimate is valid
when the human-rated items are a random sample of the group's items.

Example:
    >>> human = [{"item": f"i{k}", "group": "flux", "rating": 4 if k % 3 else 2}
    ...          for k in range(0, 200, 4)]
    >>> judge = [{"item": f"i{k}", "group": "flux", "score": 5 if k % 3 else 3}
    ...          for k in range(200)]
    >>> (row,) = hybrid_means(human, judge)
    >>> row["group"], row["mean"], row["judge_only"]["mean"], row["judge_bias"]["mean"]
    ('flux', 3.33, 4.33, 1.0)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from eval.kit.stats.ppi import MeanEstimate, ppi_mean

__all__ = ["hybrid_means"]


def _ci(est: MeanEstimate) -> dict[str, Any]:
    return {"mean": round(est.estimate, 3), "ci95": [round(est.ci[0], 3), round(est.ci[1], 3)]}


def _plain(x: np.ndarray) -> dict[str, Any]:
    se = float(x.std() / np.sqrt(x.size)) if x.size > 1 else float("nan")
    mean = float(x.mean())
    ci = [round(mean - 1.959964 * se, 3), round(mean + 1.959964 * se, 3)] if x.size > 1 else None
    return {"mean": round(mean, 3), "ci95": ci}


def _number(row: Mapping[str, Any], field: str, where: str) -> float:
    value = row.get(field)
    if isinstance(value, bool) or not isinstance(value, int | float) or not np.isfinite(value):
        raise ValueError(f"{where}: field {field!r} must be a number, got {value!r}")
    return float(value)


def hybrid_means(
    human: Iterable[Mapping[str, Any]], judge: Iterable[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """One row per group that has at least 2 items rated by both humans and the judge.

    ``human`` rows: ``{"item", "group", "rating"}``; ``judge`` rows: ``{"item", "group",
    "score"}``. A row: ``{"group", "mean", "ci95", "lam", "n_human_items", "n_judge_items",
    "human_only", "judge_only", "judge_bias", "human_without_judge"}`` (the three last but one
    with ``mean`` and ``ci95``; the bias is the judge's mean minus the humans' on the items
    both rated). Rows are sorted by ``mean``, highest first, and ranked.
    """
    ratings: dict[str, list[float]] = defaultdict(list)
    group_of: dict[str, str] = {}
    for n, r in enumerate(human):
        ratings[str(r["item"])].append(_number(r, "rating", f"human rating {n}"))
        group_of.setdefault(str(r["item"]), str(r["group"]))
    scores: dict[str, float] = {}
    for n, r in enumerate(judge):
        scores[str(r["item"])] = _number(r, "score", f"judge score {n}")
        group_of[str(r["item"])] = str(r["group"])
    groups: dict[str, list[str]] = defaultdict(list)
    for item, group in group_of.items():
        groups[group].append(item)
    rows = []
    for group, items in sorted(groups.items()):
        both = [i for i in items if i in ratings and i in scores]
        only = [i for i in items if i in scores and i not in ratings]
        if len(both) < 2:
            continue
        y = np.array([np.mean(ratings[i]) for i in both])
        yh = np.array([scores[i] for i in both])
        yu = np.array([scores[i] for i in only])
        est = ppi_mean(y, yh, yu)
        rows.append({
            "group": group, **_ci(est), "lam": round(est.lam, 4),
            "n_human_items": len(both), "n_judge_items": len(both) + len(only),
            "human_only": _ci(ppi_mean(y, yh, yu, lam=0.0)),
            "judge_only": _plain(np.concatenate([yh, yu])),
            "judge_bias": _ci(ppi_mean(yh - y, yh, yu, lam=0.0)),
            "human_without_judge": sum(1 for i in items if i in ratings and i not in scores),
        })  # fmt: skip
    rows.sort(key=lambda r: -r["mean"])
    for rank, r in enumerate(rows, start=1):
        r["rank"] = rank
    return rows
