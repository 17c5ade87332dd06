"""Published no-reference IQA models on the same items (AVT's ``iqa_baselines.csv``).

Lower is better for BRISQUE, NIQE and ILNIQE, so their scores are negated before
correlating: every reported correlation reads "higher = agrees with humans".

Example::

    iqa_baselines(Path("../shared/data/avt-dev"), items)["MUSIQ"]["appeal"]["spearman"]
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

from eval.datasets.base import EvalItem
from eval.metaeval.stats import paired_spearman_margin, regression_metrics

LOWER_IS_BETTER = {"BRISQUE", "NIQE", "ILNIQE"}


def _iqa_scores(data_dir: Path) -> dict[str, dict[str, float]]:
    """metric → image → score, signed so that higher = better."""
    path = data_dir / "iqa_baselines.csv"
    scores: dict[str, dict[str, float]] = defaultdict(dict)
    if not path.is_file():
        return scores
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            try:
                value = float(row["score"])
            except (KeyError, ValueError):
                continue
            sign = -1.0 if row["metric"] in LOWER_IS_BETTER else 1.0
            scores[row["metric"]][row["image"]] = sign * value
    return scores


def iqa_baselines(
    data_dir: Path, items: list[EvalItem], *, n_boot: int = 1000, seed: int = 0
) -> dict[str, dict[str, dict]]:
    """metric → target → Spearman/Kendall/Pearson (MAE is meaningless on other scales)."""
    scores = _iqa_scores(data_dir)
    if not scores:
        return {}
    out: dict[str, dict[str, dict]] = {}
    targets = sorted({t for i in items for t in i.labels})
    for metric, by_image in sorted(scores.items()):
        out[metric] = {}
        for t in targets:
            labelled = [i for i in items if t in i.labels]
            m = regression_metrics(
                [by_image.get(i.id) for i in labelled],
                [i.labels[t] for i in labelled],
                n_boot=n_boot,
                seed=seed,
            )
            out[metric][t] = {k: m[k] for k in ("spearman", "kendall", "pearson", "n")} | {
                "ci95": {k: m["ci95"][k] for k in ("spearman", "kendall", "pearson")}
            }
    return out


def best_baseline(baselines: dict[str, dict[str, dict]]) -> dict[str, dict]:
    """Per target, the IQA model with the highest Spearman and its value."""
    best: dict[str, dict] = {}
    for metric, per_target in baselines.items():
        for t, m in per_target.items():
            rho = m.get("spearman")
            if rho is not None and (t not in best or rho > best[t]["spearman"]):
                best[t] = {"model": metric, "spearman": rho}
    return best


def margin_vs_best(
    data_dir: Path,
    items: list[EvalItem],
    predictions: dict[str, dict],
    *,
    n_boot: int = 1000,
    seed: int = 0,
) -> dict[str, dict]:
    """Per target, the judge's Spearman minus the best IQA model's, both on the items the
    judge scored (the best model is picked on those items too), with a paired bootstrap CI
    over items; ``ci_excludes_zero`` says whether the difference is clear."""
    scores = _iqa_scores(data_dir)
    out: dict[str, dict] = {}
    for t in sorted({t for i in items for t in i.labels}):
        rows = [
            (i.id, v, i.labels[t])
            for i in items
            if t in i.labels
            and (v := ((predictions.get(i.id) or {}).get("scores") or {}).get(t)) is not None
        ]
        if len(rows) < 3 or not scores:
            continue
        judge = [v for _, v, _ in rows]
        human = [h for _, _, h in rows]
        best: tuple[float, str] | None = None
        for metric, by_image in scores.items():
            rho = regression_metrics([by_image.get(i) for i, _, _ in rows], human, n_boot=0)
            if rho["spearman"] is not None and (best is None or rho["spearman"] > best[0]):
                best = (rho["spearman"], metric)
        if best is None:
            continue
        iqa = [scores[best[1]].get(i) for i, _, _ in rows]
        m = paired_spearman_margin(judge, iqa, human, n_boot=n_boot, seed=seed)
        out[t] = {"model": best[1], "iqa_spearman": best[0]} | m
    return out
