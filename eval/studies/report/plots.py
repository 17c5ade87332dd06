"""Report figures (PNG, matplotlib's Agg backend, as :mod:`eval.plots`).

* ``bars-<measure>.png`` — one panel per backend: a bar per prompter (all tasks) with its 95%
  bootstrap CI as whiskers;
* ``heatmap-<measure>.png`` — prompters × backends, the cell colour and label the mean;
* the prompter leaderboards through :func:`eval.leaderboards.plots.write_plots`
  (``bt-<measure>.png``, ``win-matrix-<measure>.png``).

Example::

    write_plots(report, Path("runs/demo/plots"))
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from eval.leaderboards.plots import write_plots as board_plots
from eval.studies.report.consistency import table
from eval.studies.report.markdown import LABELS

LIMITS = {"subjective": (1.0, 5.0), "objective": (0.0, 100.0)}


def _limits(measure: str) -> tuple[float, float]:
    return LIMITS[measure.split("_")[0]]


def bars(report: dict, measure: str, path: Path) -> Path:
    """Per backend, the prompters' means of ``measure`` with CI whiskers."""
    rows = [c for c in report["cells"] if c["category"] == "all"]
    backends = list(dict.fromkeys(c["backend"] for c in rows))
    prompters = list(dict.fromkeys(c["prompter"] for c in rows))
    fig, axes = plt.subplots(
        1, len(backends), figsize=(0.5 * len(prompters) * len(backends) + 3, 3.8),
        squeeze=False, sharey=True,
    )
    lo_lim, hi_lim = _limits(measure)
    for ax, backend in zip(axes.flat, backends, strict=True):
        mine = {c["prompter"]: c[measure] for c in rows if c["backend"] == backend}
        means = np.array([np.nan if mine[p]["mean"] is None else mine[p]["mean"]
                          for p in prompters])
        ci = [mine[p]["ci95"] or [m, m] for p, m in zip(prompters, means, strict=True)]
        err = np.array([[max(m - c[0], 0), max(c[1] - m, 0)] for m, c in zip(means, ci,
                                                                          strict=True)]).T
        ax.bar(range(len(prompters)), np.nan_to_num(means - lo_lim), bottom=lo_lim,
               yerr=np.nan_to_num(err), capsize=3, color="#4c72b0")
        ax.set_xticks(range(len(prompters)), prompters, rotation=60, ha="right")
        ax.set_ylim(lo_lim, hi_lim)
        ax.set_title(backend)
    axes.flat[0].set_ylabel(LABELS[measure])
    fig.suptitle(f"{LABELS[measure]} · all tasks · 95% bootstrap CI")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def heatmap(report: dict, measure: str, path: Path) -> Path:
    """Prompters (rows) × backends (columns), coloured by the mean over all tasks."""
    prompters, backends, grid = table(report["cells"], measure)
    fig, ax = plt.subplots(figsize=(0.9 * len(backends) + 3, 0.4 * len(prompters) + 1.8))
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="#dddddd")
    lo, hi = _limits(measure)
    im = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=lo, vmax=hi, aspect="auto")
    ax.set_xticks(range(len(backends)), backends, rotation=45, ha="right")
    ax.set_yticks(range(len(prompters)), prompters)
    if grid.size <= 400:
        nd = 2 if measure.startswith("subjective") else 1
        for i, j in zip(*np.where(np.isfinite(grid)), strict=True):
            ax.text(j, i, f"{grid[i, j]:.{nd}f}", ha="center", va="center", fontsize=7,
                    color="white" if grid[i, j] < (lo + hi) / 2 else "black")
    ax.set_title(LABELS[measure])
    fig.colorbar(im, ax=ax, fraction=0.046)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_plots(report: dict, folder: Path) -> list[Path]:
    """Every figure of the report into ``folder`` (measures without data are skipped)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    for measure in LABELS:
        _, _, grid = table(report["cells"], measure)
        if not np.isfinite(grid).any():
            continue
        paths.append(bars(report, measure, folder / f"bars-{measure}.png"))
        paths.append(heatmap(report, measure, folder / f"heatmap-{measure}.png"))
    for board in report["leaderboard"].values():
        if board.get("models"):
            paths += board_plots(board, folder)
    return paths
