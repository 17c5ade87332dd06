"""Write a run's ``report.json``, ``report.md`` and plots into its output folder.

Example::

    write_report(report, items, predictions, dataset, Path("runs/dev"))
"""

from __future__ import annotations

import json
from pathlib import Path

from eval.datasets.base import Dataset, EvalItem
from eval.kit.render import render
from eval.metaeval import compare_report, plots
from eval.metaeval.evaluate import pairs_by_target
from eval.metaeval.report_page import memory_line, page
from eval.metaeval.trust_report import add_trust

__all__ = ["markdown", "memory_line", "write_report"]


def markdown(report: dict) -> str:
    """The report as Markdown (the page model of :mod:`eval.metaeval.report_page` in the
    templates ``eval/metaeval/templates/report.md.j2`` or ``scores_only.md.j2``)."""
    name = "scores_only.md.j2" if report.get("scores_only") else "report.md.j2"
    return render("eval.metaeval", name, r=page(report))


def write_report(
    report: dict, items: list[EvalItem], predictions: list[dict], dataset: Dataset, out: Path
) -> None:
    """report.json, report.md and PNG plots."""
    pairs = pairs_by_target(dataset, items, {p["id"]: p for p in predictions})
    made: list[Path | None] = (
        []
        if report.get("scores_only")
        else [plots.scatter(pairs, out / "scatter.png", report["targets"])]
    )
    made += compare_report.system_plots(report, out)
    if report.get("objective"):
        made.append(plots.confusion(report["objective"], out / "objective_confusion.png"))
    if report.get("ablation"):
        made.append(plots.ablation_bars(report["ablation"], out / "ablation.png"))
    if report.get("calibration"):
        made.append(
            plots.calibration_curve(pairs, report["calibration"]["maps"], out / "calibration.png")
        )
    made.append(add_trust(report, items, predictions, dataset, out))
    report["plots"] = [p.name for p in made if p is not None]
    (out / "report.json").write_text(json.dumps(report, indent=2, allow_nan=False))
    (out / "report.md").write_text(markdown(report))
