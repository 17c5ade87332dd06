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
from eval.metrics import regression_metrics

LOWER_IS_BETTER = {"BRISQUE", "NIQE", "ILNIQE"}


def iqa_baselines(
    data_dir: Path, items: list[EvalItem], *, n_boot: int = 1000, seed: int = 0
) -> dict[str, dict[str, dict]]:
    """metric → target → Spearman/Kendall/Pearson (MAE is meaningless on other scales)."""
    path = data_dir / "iqa_baselines.csv"
    if not path.is_file():
        return {}
    scores: dict[str, dict[str, float]] = defaultdict(dict)
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            try:
                value = float(row["score"])
            except (KeyError, ValueError):
                continue
            sign = -1.0 if row["metric"] in LOWER_IS_BETTER else 1.0
            scores[row["metric"]][row["image"]] = sign * value
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
