"""Hybrid mean image ratings in the study report: human ratings of some of the study's images
(a rating campaign's export) with the judge's ``subjective_image`` score of all of them.

A rating campaign built from a study run (``judge campaign create RUN/results.jsonl --kind
rating``) names its items ``TASK:BACKEND``, or ``TASK.PROMPTER:PROMPTER/BACKEND`` when the
study has several prompters; ``judge campaign votes`` exports one row per rating
``{"item", "model", "rating", "excluded", ...}``. Each prompter's and each backend's mean
rating is then the prediction-powered (PPI++) estimate of
:func:`eval.kit.stats.hybrid_means.hybrid_means`, with human-only, judge-only and judge-bias
columns next to it.

Example::

    report["hybrid_ratings"] = hybrid_study_ratings(study.items, Path("ratings.jsonl"))
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eval.kit.stats.hybrid_means import hybrid_means
from eval.studies.report.load import Item, ReportError
from memory.io.jsonl import read_jsonl

MEASURE = "subjective_image"
ASSUMPTION = (
    "assumes the rated images are a random sample of the study's images; the judge scored "
    "the others"
)


def _ids(item: Item) -> list[str]:
    return [
        f"{item.task_id}:{item.backend}",
        f"{item.task_id}.{item.prompter}:{item.prompter}/{item.backend}",
    ]


def _key(item: Item) -> str:
    return f"{item.task_id}|{item.prompter}|{item.backend}"


def hybrid_study_ratings(items: list[Item], path: Path) -> dict[str, Any]:
    """``{"measure", "by_prompter", "by_backend", "n_ratings", "unmatched", "note"}``."""
    if not path.is_file():
        raise ReportError(f"{path}: no such ratings file")
    by_id: dict[str, Item] = {}
    for it in items:
        if it.values.get(MEASURE) is not None:
            for key in _ids(it):
                by_id[key] = it
    ratings: list[tuple[Item, str, float]] = []
    unmatched = 0
    for n, row in read_jsonl(path, error=ReportError):
        where = f"{path}:{n}"
        if not isinstance(row, dict):
            raise ReportError(f"{where}: expected a JSON object")
        if row.get("excluded") in (True, "true", "True", "1"):
            continue
        rating = row.get("rating")
        if isinstance(rating, bool) or not isinstance(rating, int | float):
            raise ReportError(f"{where}: field 'rating' must be a number, got {rating!r}")
        item = by_id.get(str(row.get("item")))
        if item is None:
            unmatched += 1
            continue
        ratings.append((item, str(row.get("item")), float(rating)))
    if not ratings:
        raise ReportError(
            f"{path}: no rating names an image of this study with a judge score (items are "
            "named TASK:BACKEND or TASK.PROMPTER:PROMPTER/BACKEND, as campaigns built from "
            "the study's results.jsonl name them)"
        )
    out: dict[str, Any] = {"measure": MEASURE}
    for name, group in (("by_prompter", "prompter"), ("by_backend", "backend")):
        judge = [
            {"item": _key(it), "group": getattr(it, group), "score": it.values[MEASURE]}
            for it in items
            if it.values.get(MEASURE) is not None
        ]
        human = [
            {"item": _key(it), "group": getattr(it, group), "rating": r} for it, _, r in ratings
        ]
        out[name] = hybrid_means(human, judge)
    out.update({"n_ratings": len(ratings), "unmatched": unmatched, "note": ASSUMPTION})
    return out
