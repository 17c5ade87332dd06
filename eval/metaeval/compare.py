"""Compare metrics with people, on the same items: the judge, the metrics a set ships, and any
metric brought with ``--scores``.

Per target (a rating the humans gave), on the items **every** metric scored:

* item level — Spearman ρ, Kendall τ-b, Pearson r and the tie-calibrated pairwise accuracy of
  each metric against the human mean (:func:`eval.metaeval.public_sets.rating_figures`);
* system level, when the items carry a system (a generator: the ``model`` slice) — each
  metric's system means against the humans' (:mod:`eval.metaeval.system_level`);
* significance — every two metrics tested by paired permutation over items
  (:mod:`eval.kit.stats.permutation`; statistic: difference of Spearman ρ at item level, of
  Pearson r of system means at system level), corrected over all pairs of a level
  (Benjamini–Hochberg by default, or Holm), with wins/losses and significance clusters
  (:mod:`eval.kit.stats.sig_clusters`).

Example::

    section = compare_metrics(dataset, items, predictions, given={"mine": {...}},
                              data=Path("tifa"), n_boot=1000, n_perm=1000, seed=0)
    section["targets"]["faithfulness"]["significance"]["item"]["clusters"]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from eval.datasets.base import Dataset, EvalItem
from eval.kit.stats import permutation
from eval.kit.stats.sig_clusters import (
    ALPHA,
    CORRECTIONS,
    adjust_matrix,
    clusters,
    resolution_note,
    wins_losses,
)
from eval.metaeval.public_sets import MANY_VALUES, rating_figures
from eval.metaeval.stats import regression_metrics
from eval.metaeval.system_level import system_agreement

__all__ = ["ITEM_STATISTIC", "SYSTEM_STATISTIC", "comparable_targets", "compare_metrics"]

ITEM_STATISTIC = "difference of Spearman ρ with the human mean, over items"
SYSTEM_STATISTIC = "difference of Pearson r between system means and the humans' system means"
SYSTEM_KEY = "model"
PAIRWISE_MAX_ITEMS = 10_000
"""Above this many items, a metric with many distinct values gets no tie-calibrated pairwise
accuracy (its search visits every pair of items: about 70 s of CPU per metric at 40,000)."""


def comparable_targets(dataset: Dataset) -> list[str]:
    """The targets with per-item ratings a score can be correlated with (not preferences,
    comparisons or edits)."""
    if getattr(dataset, "kind", "ratings") != "ratings":
        return []
    return [t.name for t in dataset.targets if t.modality in ("image", "prompt")]


def _table(
    dataset: Dataset,
    data: Path,
    target: str,
    items: list[EvalItem],
    predictions: dict[str, dict],
    given: dict[str, dict[str, float]],
) -> tuple[dict[str, dict[str, float]], dict[str, str]]:
    """Metric → item id → score, and each metric's source."""
    table: dict[str, dict[str, float]] = {}
    source: dict[str, str] = {}
    judged = {
        i.id: v
        for i in items
        if (v := ((predictions.get(i.id) or {}).get("scores") or {}).get(target)) is not None
    }
    if judged:
        table["judge"], source["judge"] = judged, "judge"
    shipped = dataset.published_scores(data) if hasattr(dataset, "published_scores") else {}
    if dataset.targets and target == dataset.targets[0].name:  # the set's scores: first target
        for name, by_id in sorted(shipped.items()):
            table[name], source[name] = by_id, "published (recomputed)"
    for name, by_id in given.items():
        table[name], source[name] = by_id, "--scores"
    return table, source


def _significance(
    names: list[str],
    result: permutation.PermutationResult,
    statistic: str,
    correction: str,
) -> dict[str, Any]:
    adjusted = adjust_matrix(result.p, correction)

    def as_dict(p: np.ndarray) -> dict[str, dict[str, float | None]]:
        return {
            a: {
                b: (float(p[i, j]) if np.isfinite(p[i, j]) else None)
                for j, b in enumerate(names)
                if j != i
            }
            for i, a in enumerate(names)
        }

    return {
        "statistic": statistic,
        "test": "paired permutation: each resample swaps the two metrics' standardised "
        "scores on a random half of the items; two-sided p",
        "n_resamples": result.n_resamples,
        "correction": CORRECTIONS[correction],
        "correction_method": correction,
        "alpha": ALPHA,
        "resolution": resolution_note(len(names), result.n_resamples, correction),
        "correlation": {
            n: (float(c) if np.isfinite(c) else None)
            for n, c in zip(names, result.corr, strict=True)
        },
        "p": as_dict(result.p),
        "p_adjusted": as_dict(adjusted),
        "wins_losses": wins_losses(result.corr, adjusted, names),
        "clusters": clusters(result.corr, adjusted, names),
    }


def _one_target(
    table: dict[str, dict[str, float]],
    source: dict[str, str],
    items: list[EvalItem],
    target: str,
    *,
    n_boot: int,
    n_perm: int,
    seed: int,
    correction: str,
) -> dict[str, Any]:
    labelled = [i for i in items if target in i.labels]
    names = list(table)
    common = [i for i in labelled if all(i.id in table[m] for m in names)]
    human = np.array([i.labels[target] for i in common], dtype=float)
    scores = np.array([[table[m][i.id] for i in common] for m in names], dtype=float)
    out: dict[str, Any] = {
        "n_items": len(common),
        "n_labelled": len(labelled),
        "coverage": {m: sum(i.id in table[m] for i in labelled) for m in names},
        "metrics": {},
        "system": None,
        "significance": {},
    }
    for row, m in enumerate(names):
        slow = len(common) > PAIRWISE_MAX_ITEMS and len(np.unique(scores[row])) > MANY_VALUES
        if slow:
            fig = regression_metrics(list(scores[row]), list(human), n_boot=0)
            fig["pairwise_accuracy"] = None
            out["pairwise_note"] = (
                f"pairwise accuracy left out for metrics with many distinct values on more "
                f"than {PAIRWISE_MAX_ITEMS:,} items (it visits every pair of items)"
            )
        else:
            fig = rating_figures(list(scores[row]), list(human), n_boot=0, seed=seed)
        out["metrics"][m] = {"source": source[m]} | {
            k: fig[k] for k in ("spearman", "kendall", "pearson", "pairwise_accuracy", "n")
        }
    if len(common) < 3:
        out["note"] = (
            f"{len(common)} item(s) scored by every metric: too few to compare (the items "
            "each metric scored are under coverage)"
        )
        return out
    systems = [i.slices.get(SYSTEM_KEY) for i in common]
    with_system = [k for k, s in enumerate(systems) if s]
    if len({systems[k] for k in with_system}) >= 2:
        keep = np.array(with_system)
        out["system"] = system_agreement(
            dict(zip(names, scores[:, keep], strict=True)),
            human[keep],
            np.array([systems[k] for k in with_system]),
            n_boot=n_boot,
            seed=seed,
        )
        out["system"]["n_items"] = len(with_system)
    if len(names) >= 2:
        ranks = permutation.rank_transform(scores)
        res = permutation.item_level(
            ranks, permutation.rank_transform(human), n_resamples=n_perm, seed=seed
        )
        out["significance"]["item"] = _significance(names, res, ITEM_STATISTIC, correction)
        sys_info = out["system"]
        if sys_info is not None and sys_info["n_systems"] >= 3:
            keep = np.array(with_system)
            res = permutation.system_level(
                scores[:, keep],
                human[keep],
                np.array([systems[k] for k in with_system]),
                n_resamples=n_perm,
                seed=seed + 1,
            )
            out["significance"]["system"] = _significance(names, res, SYSTEM_STATISTIC, correction)
    return out


def compare_metrics(
    dataset: Dataset,
    items: list[EvalItem],
    predictions: list[dict],
    *,
    given: dict[str, dict[str, float]],
    data: Path,
    n_boot: int,
    n_perm: int,
    seed: int,
    correction: str = "bh",
) -> dict[str, Any] | None:
    """The comparison section (``None`` when there is nothing to compare: one metric and no
    systems)."""
    preds = {p["id"]: p for p in predictions}
    targets: dict[str, Any] = {}
    for target in comparable_targets(dataset):
        table, source = _table(dataset, data, target, items, preds, given)
        has_systems = len({i.slices.get(SYSTEM_KEY) for i in items} - {None, ""}) >= 2
        if len(table) < 2 and not (table and has_systems):
            continue
        targets[target] = _one_target(
            table,
            source,
            items,
            target,
            n_boot=n_boot,
            n_perm=n_perm,
            seed=seed,
            correction=correction,
        )
    if not targets:
        return None
    return {
        "system_key": SYSTEM_KEY,
        "n_permutations": n_perm,
        "correction": correction,
        "n_boot": n_boot,
        "seed": seed,
        "targets": targets,
    }
