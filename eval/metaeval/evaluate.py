"""Compare predictions with labels: per-target agreement, macro averages, objective accuracy,
human baselines, inter-rater agreement and slices.

Example::

    report = evaluate(dataset, items, predictions, n_boot=1000, seed=0)
    report["targets"]["appeal"]["spearman"]
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from eval.datasets.base import Dataset, EvalItem
from eval.metaeval.agreement import human_baseline, inter_rater
from eval.metaeval.stats import (
    classification_metrics,
    macro_average,
    regression_metrics,
    slice_metrics,
)


def pairs_by_target(
    dataset: Dataset, items: list[EvalItem], preds: dict[str, dict]
) -> dict[str, tuple[list[float | None], list[float]]]:
    """(predictions, labels) per target over every item that has the label."""
    out: dict[str, tuple[list[float | None], list[float]]] = {}
    for t in dataset.targets:
        p: list[float | None] = []
        h: list[float] = []
        for item in items:
            if t.name not in item.labels:
                continue
            row = preds.get(item.id) or {}
            p.append((row.get("scores") or {}).get(t.name))
            h.append(item.labels[t.name])
        out[t.name] = (p, h)
    return out


def _objective(items: list[EvalItem], preds: dict[str, dict], n_boot: int, seed: int) -> dict:
    groups: dict[str, tuple[list, list]] = {"prompt": ([], []), "image": ([], [])}
    for item in items:
        row = (preds.get(item.id) or {}).get("objective") or {}
        for side, labels in item.objective.items():
            for cid, gold in labels.items():
                groups.setdefault(side, ([], []))
                groups[side][0].append((row.get(side) or {}).get(cid))
                groups[side][1].append(gold)
    if not any(g[1] for g in groups.values()):
        return {}
    out = {
        side: classification_metrics(p, g, n_boot=n_boot, seed=seed)
        for side, (p, g) in groups.items()
        if g
    }
    allp = [x for p, _ in groups.values() for x in p]
    allg = [x for _, g in groups.values() for x in g]
    out["overall"] = classification_metrics(allp, allg, n_boot=n_boot, seed=seed)
    return out


def _humans(dataset: Dataset, items: list[EvalItem], n_boot: int, seed: int) -> dict:
    out: dict[str, Any] = {}
    for t in dataset.targets:
        ratings = {i.id: i.ratings[t.name] for i in items if i.ratings.get(t.name)}
        if len(ratings) >= 3:
            out[t.name] = {
                "baseline": human_baseline(ratings, n_boot=n_boot, seed=seed),
                "inter_rater": inter_rater(ratings),
            }
    return out


def unscored_reasons(
    dataset: Dataset, items: list[EvalItem], preds: dict[str, dict]
) -> dict[str, list[dict[str, Any]]]:
    """Per target, why labelled items have no prediction: ``[{"reason", "n"}]``, most
    frequent first (targets scored on every labelled item are left out)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for t in dataset.targets:
        counts: Counter[str] = Counter()
        for item in items:
            if t.name not in item.labels:
                continue
            pred = preds.get(item.id)
            if pred is None:
                counts["not scored (the run stopped before this item)"] += 1
            elif "error" in pred:
                counts[f"the item failed: {pred['error']}"] += 1
            elif (pred.get("scores") or {}).get(t.name) is None:
                counts[(pred.get("unscored") or {}).get(t.name) or "unscored"] += 1
        if counts:
            out[t.name] = [{"reason": r, "n": n} for r, n in counts.most_common()]
    return out


def evaluate(
    dataset: Dataset,
    items: list[EvalItem],
    predictions: list[dict],
    *,
    n_boot: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """The full metrics block of a report."""
    preds = {p["id"]: p for p in predictions}
    pairs = pairs_by_target(dataset, items, preds)
    targets = {
        name: regression_metrics(p, h, n_boot=n_boot, seed=seed) for name, (p, h) in pairs.items()
    }
    modalities: dict[str, list[str]] = defaultdict(list)
    for t in dataset.targets:
        modalities[t.modality].append(t.name)
    macro = {m: macro_average(targets, names) for m, names in modalities.items()}
    slices: dict[str, dict] = {}
    keys = sorted({k for i in items for k in i.slices})
    for key in keys:
        slices[key] = {}
        for name, _ in pairs.items():
            labelled = [i for i in items if name in i.labels]
            p = [(preds.get(i.id) or {}).get("scores", {}).get(name) for i in labelled]
            h = [i.labels[name] for i in labelled]
            slices[key][name] = slice_metrics(
                p, h, [i.slices.get(key) for i in labelled], seed=seed
            )
    errors = [p for p in predictions if "error" in p]
    return {
        "unscored": unscored_reasons(dataset, items, preds),
        "n_items": len(items),
        "n_predicted": len(predictions) - len(errors),
        "n_errors": len(errors),
        "errors": [{"id": e["id"], "error": e["error"]} for e in errors[:20]],
        "targets": targets,
        "macro": macro,
        "objective": _objective(items, preds, n_boot, seed),
        "humans": _humans(dataset, items, n_boot, seed),
        "slices": slices,
    }
