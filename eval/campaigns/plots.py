"""The campaign report as files: ``report.json``, ``report.md`` and PNG figures (matplotlib,
Agg backend) — the human leaderboard (:mod:`eval.leaderboards.plots` for votes), annotators'
validation accuracy against their median answer time (flagged ones marked), and judge–human
next to human–human agreement when the judge answered the same items.

Example::

    paths = write_report(report, Path("runs/c1-report"))
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from eval.campaigns.report_page import page
from eval.kit.render import render
from eval.leaderboards.plots import write_plots

NONE_Y = -0.1
"""Where an annotator with no validation answer is drawn (the "none" row)."""


LABELLED_DOTS = 60
"""Up to this many annotators, every dot carries its annotator's name; past it, only the
flagged ones (the names would cover the plot)."""


def annotator_plot(report: dict[str, Any], path: Path) -> Path:
    """:func:`annotator_figure` as a PNG at ``path``."""
    fig = annotator_figure(report)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def annotator_figure(report: dict[str, Any]) -> Figure:
    """Validation accuracy (0–1, the campaign's bar drawn) against median seconds per
    answer (from 0), one named dot per annotator; annotators with no validation answer sit
    on the "none" row below 0."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    people = report["annotators"]
    bar = (report.get("exclusions") or {}).get("rules", {}).get("min_validation_accuracy")
    named = len(people) <= LABELLED_DOTS
    for flagged, colour, label in ((False, "#1b7837", "kept"), (True, "#b2182b", "flagged")):
        rows = [a for a in people if a["flagged"] == flagged]
        x = [a["median_seconds"] or 0 for a in rows]
        y = [NONE_Y if a["validation_accuracy"] is None else a["validation_accuracy"]
             for a in rows]  # fmt: skip
        ax.scatter(x, y, c=colour, label=f"{label} ({len(rows)})", alpha=0.8, zorder=3)
        for a, xi, yi in zip(rows, x, y, strict=True):
            if named or flagged:
                ax.annotate(a["id"], (xi, yi), xytext=(4, 3), textcoords="offset points",
                            fontsize=7, color=colour)  # fmt: skip
    if bar is not None:
        ax.axhline(bar, color="#555555", linestyle="--", linewidth=1, zorder=1)
        ax.text(0.995, bar, f" bar {bar:g}", transform=ax.get_yaxis_transform(),
                ha="right", va="bottom", fontsize=8, color="#555555")  # fmt: skip
    slowest = max([a["median_seconds"] or 0 for a in people] + [1.0])
    ax.set_xlim(0, slowest * 1.15)
    ax.set_ylim(NONE_Y - 0.07, 1.05)
    ticks = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    ax.set_yticks([NONE_Y, *ticks], ["none", *[f"{t:g}" for t in ticks]])
    ax.set_xlabel("median seconds per answer")
    ax.set_ylabel("validation accuracy")
    ax.set_title(f"Annotators of {report['campaign']}")
    ax.grid(alpha=0.25)
    ax.legend(loc="lower right")
    fig.tight_layout()
    return fig


def agreement_plot(report: dict[str, Any], path: Path) -> Path:
    ja = report["judge_agreement"]
    bars = [("judge vs humans", ja["judge_human"]), ("human vs humans", ja["human_human"])]
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for i, (_, r) in enumerate(bars):
        rate = r["rate"] or 0.0
        ci = r["ci95"] or [rate, rate]
        ax.bar(i, rate, color=["#2166ac", "#999999"][i])
        ax.errorbar(i, rate, yerr=[[rate - ci[0]], [ci[1] - rate]], color="black", capsize=6)
    ax.set_xticks([0, 1], [b[0] for b in bars])
    ax.set_ylim(0, 1)
    ax.set_ylabel(ja["rule"])
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def markdown(report: dict[str, Any], figures: dict[str, str] | None = None) -> str:
    """``report.md``: the report as text, with ``figures`` (name → file beside it:
    ``annotators``, ``leaderboard``, ``win_matrix``, ``judge_agreement``, ``trust``) embedded
    where they belong (:class:`eval.campaigns.report_page.CampaignPage` in the template
    ``eval/campaigns/templates/report.md.j2``)."""
    return render("eval.campaigns", "report.md.j2", r=page(report, figures))


def write_report(report: dict[str, Any], folder: Path) -> list[Path]:
    """Write the report's files into ``folder`` (the figures first, so ``report.md`` embeds
    them); the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    figures: dict[str, Path] = {}
    if report["annotators"]:
        figures["annotators"] = annotator_plot(report, folder / "annotators.png")
    board = report.get("leaderboard")
    if board and board.get("win_matrix"):
        figures["leaderboard"], figures["win_matrix"] = write_plots(board, folder)
    if "judge_agreement" in report:
        figures["judge_agreement"] = agreement_plot(report, folder / "judge_agreement.png")
    if report.get("trust"):
        from eval.trust.report import trust_plot

        plot = trust_plot(report["trust"], folder / "trust.png")
        if plot is not None:
            figures["trust"] = plot
    paths = [folder / "report.json", folder / "report.md"]
    paths[0].write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    names = {k: v.name for k, v in figures.items()}
    paths[1].write_text(markdown(report, names), encoding="utf-8")
    return paths + list(figures.values())
