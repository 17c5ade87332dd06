"""Report figures (PNG, matplotlib's Agg backend, as :mod:`eval.metaeval.plots`).

* ``bars.png`` — one panel per measure: for every prompter a group of bars, one per backend
  (all tasks), each with its 95% bootstrap CI as a whisker;
* ``heatmap.png`` — one panel per measure: prompters × backends coloured by the mean over the
  measure's scale (values written in the cells when there are at most 60);
* ``bt-objective_image_rate.png`` — the prompter leaderboard of the headline measure (image-side
  checklist satisfaction; another measure when that one has no votes), drawn by
  :func:`eval.leaderboards.plots.score_plot`. Every measure's board is in the JSON and tables.

Example::

    write_plots(report, Path("runs/demo/plots"))
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from eval.leaderboards.plots import score_plot
from eval.studies.report.consistency import table
from eval.studies.report.markdown import LABELS

LIMITS = {"subjective": (1.0, 5.0), "objective": (0.0, 100.0)}
DPI = 100
HEADLINE = "objective_image_rate"


def _limits(measure: str) -> tuple[float, float]:
    return LIMITS[measure.split("_")[0]]


def _with_data(report: dict) -> list[str]:
    return [m for m in LABELS if np.isfinite(table(report["cells"], m)[2]).any()]


#: why a measure can be empty in every cell, said on the figure instead of a blank panel
WHY_EMPTY = {
    "subjective_prompt": "scoring prompts needs a judge model\nor exemplar memories of prompts",
    "subjective_image": "scoring images needs a judge model\nor an exemplar memory (e.g. @avt)",
}


def _say_empty(axes: list[plt.Axes], report: dict, measures: list[str]) -> None:
    """The panels left over: name each measure without values, and why, or hide them."""
    missing = [m for m in LABELS if m not in measures]
    for ax, measure in zip(axes, missing + [None] * len(axes), strict=False):
        ax.axis("off")
        if measure is not None:
            why = WHY_EMPTY.get(measure, "no item has a value")
            ax.text(0.5, 0.5, f"{LABELS[measure]}: no values\n{why}", ha="center",
                    va="center", fontsize=8, color="#555555", transform=ax.transAxes)


def _bar_panel(ax: plt.Axes, report: dict, measure: str) -> None:
    rows = {
        (c["prompter"], c["backend"]): c[measure] for c in report["cells"] if c["category"] == "all"
    }
    prompters = list(dict.fromkeys(p for p, _ in rows))
    backends = list(dict.fromkeys(b for _, b in rows))
    lo_lim, hi_lim = _limits(measure)
    width = 0.8 / len(backends)
    x = np.arange(len(prompters))
    for k, backend in enumerate(backends):
        cells = [rows[(p, backend)] for p in prompters]
        mean = np.array([np.nan if c["mean"] is None else c["mean"] for c in cells])
        ci = np.array([c["ci95"] or [np.nan, np.nan] for c in cells], dtype=float)
        err = np.nan_to_num(np.abs(np.vstack([mean - ci[:, 0], ci[:, 1] - mean])))
        ax.bar(
            x + (k - (len(backends) - 1) / 2) * width,
            np.nan_to_num(mean - lo_lim),
            width,
            bottom=lo_lim,
            yerr=err,
            capsize=2,
            label=backend,
        )
    ax.set_xticks(x, prompters, rotation=45, ha="right", fontsize=7)
    ax.set_ylim(lo_lim, hi_lim)
    ax.set_title(LABELS[measure], fontsize=9)


def bars(report: dict, path: Path) -> Path:
    """Per measure, the prompters' means per backend with CI whiskers (all tasks)."""
    measures = _with_data(report)
    n_p = len({c["prompter"] for c in report["cells"]})
    fig, axes = plt.subplots(2, 2, figsize=(max(7.0, 0.9 * n_p + 3), 6.5), squeeze=False)
    for ax, measure in zip(axes.flat, measures, strict=False):
        _bar_panel(ax, report, measure)
    _say_empty(list(axes.flat)[len(measures) :], report, measures)
    axes.flat[0].legend(fontsize=7, title="backend", title_fontsize=7)
    fig.suptitle("means over all tasks · 95% bootstrap CI", fontsize=10)
    fig.subplots_adjust(left=0.07, right=0.98, bottom=0.14, top=0.9, hspace=0.55, wspace=0.15)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def heatmap(report: dict, path: Path) -> Path:
    """Per measure, prompters (rows) × backends (columns) coloured by the mean (all tasks)."""
    measures = _with_data(report)
    prompters, backends, _ = table(report["cells"], measures[0])
    # room for the rotated backend names below and the prompter names left of each panel
    longest = max(len(str(x)) for x in [*prompters, *backends])
    size = (max(8.0, 2 * (0.55 * len(backends) + 0.075 * longest) + 2),
            max(6.0, 2 * (0.35 * len(prompters) + 0.05 * longest) + 2.5))
    fig, axes = plt.subplots(2, 2, figsize=size, squeeze=False, layout="constrained")
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="#dddddd")
    for ax, measure in zip(axes.flat, measures, strict=False):
        _, _, grid = table(report["cells"], measure)
        lo, hi = _limits(measure)
        ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=lo, vmax=hi, aspect="auto")
        ax.set_xticks(range(len(backends)), backends, rotation=45, ha="right", fontsize=7)
        ax.set_yticks(range(len(prompters)), prompters, fontsize=7)
        if grid.size <= 60:
            nd = 2 if measure.startswith("subjective") else 1
            for i, j in zip(*np.where(np.isfinite(grid)), strict=True):
                ax.text(
                    j,
                    i,
                    f"{grid[i, j]:.{nd}f}",
                    ha="center",
                    va="center",
                    fontsize=6,
                    color="white" if grid[i, j] < (lo + hi) / 2 else "black",
                )
        ax.set_title(f"{LABELS[measure]}\ncolour {lo:g} (dark) to {hi:g} (light)", fontsize=9)
    _say_empty(list(axes.flat)[len(measures) :], report, measures)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def write_plots(report: dict, folder: Path) -> list[Path]:
    """Every figure of the report into ``folder`` (none when no measure has data)."""
    folder.mkdir(parents=True, exist_ok=True)
    if not _with_data(report):
        return []
    paths = [bars(report, folder / "bars.png"), heatmap(report, folder / "heatmap.png")]
    boards = {m: b for m, b in report["leaderboard"].items() if b.get("models")}
    if boards:  # one leaderboard figure: the headline measure (the others are in the tables)
        measure = HEADLINE if HEADLINE in boards else next(iter(boards))
        paths.append(score_plot(boards[measure], folder / f"bt-{measure}.png"))
    return paths
