"""Figures of an edit-study report (PNG, matplotlib's Agg backend), each explained in
``report.md``:

* ``success.png`` — success@τ per editor (all writers), 95% bootstrap CI as whiskers;
* ``criteria.png`` — the three criteria's mean score per editor, with CIs;
* ``categories.png`` / ``families.png`` — success@τ per editor × image category / edit family;
* ``wins.png`` — the pairwise win-rate matrix (row editor against column editor);
* ``failures.png`` — per editor, the share of applicable edits past each shift metric's
  failure line.

Example::

    write_edit_plots(report, Path("runs/edits/plots"))
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from eval.leaderboards.plots import win_matrix_plot
from eval.studies.edits.results import CRITERIA

DPI = 100


def _whiskers(values: list[float], cis: list[list[float] | None]) -> np.ndarray:
    lo = [v - c[0] if c else 0.0 for v, c in zip(values, cis, strict=True)]
    hi = [c[1] - v if c else 0.0 for v, c in zip(values, cis, strict=True)]
    return np.maximum(np.array([lo, hi], dtype=float), 0.0)


def _save(fig: plt.Figure, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def success_bars(report: dict, path: Path) -> Path:
    """success@τ per editor with whiskers."""
    eds = report["editors"]
    names = list(eds)
    vals = [eds[e]["success"]["rate"] or 0.0 for e in names]
    fig, ax = plt.subplots(figsize=(1.2 * len(names) + 2.5, 3.6))
    ax.bar(names, vals, yerr=_whiskers(vals, [eds[e]["success"]["ci95"] for e in names]),
           capsize=4, color="#4c72b0")  # fmt: skip
    ax.set_ylim(0, 100)
    ax.set_ylabel(f"success@{report['threshold']} (%)")
    ax.set_title("edits judged successful · 95% bootstrap CI over tasks")
    return _save(fig, path)


def criteria_bars(report: dict, path: Path) -> Path:
    """One group of three bars (the criteria) per editor."""
    eds = report["editors"]
    names = list(eds)
    x = np.arange(len(names))
    width = 0.8 / len(CRITERIA)
    fig, ax = plt.subplots(figsize=(1.6 * len(names) + 4.5, 3.8))
    for k, crit in enumerate(CRITERIA):
        cells = [eds[e]["criteria"][crit] for e in names]
        vals = [c["mean"] if c["mean"] is not None else 0.0 for c in cells]
        ax.bar(x + k * width, vals, width, yerr=_whiskers(vals, [c["ci95"] for c in cells]),
               capsize=3, label=crit.replace("_", " "))  # fmt: skip
    ax.set_xticks(x + width, names)
    ax.set_ylim(0, 5.2)
    ax.set_ylabel("mean score (1-5)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_title("the three edit criteria · 95% bootstrap CI over tasks")
    return _save(fig, path)


def group_heatmap(report: dict, field: str, path: Path) -> Path:
    """success@τ per editor (rows) × category or family (columns); n in each cell."""
    table = report[field]
    editors = list(table)
    groups = sorted({g for e in editors for g in table[e]})
    grid = np.full((len(editors), len(groups)), np.nan)
    for i, e in enumerate(editors):
        for j, g in enumerate(groups):
            rate = (table[e].get(g) or {}).get("success", {}).get("rate")
            grid[i, j] = np.nan if rate is None else rate
    fig, ax = plt.subplots(figsize=(0.7 * len(groups) + 3, 0.5 * len(editors) + 2.2))
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="#dddddd")
    im = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(groups)), groups, rotation=50, ha="right", fontsize=7)
    ax.set_yticks(range(len(editors)), editors)
    for i, e in enumerate(editors):
        for j, g in enumerate(groups):
            if g in table[e]:
                n = table[e][g]["success"]["n"]
                text = "-" if np.isnan(grid[i, j]) else f"{grid[i, j]:.0f}"
                dark = not np.isnan(grid[i, j]) and grid[i, j] < 60
                ax.text(j, i, f"{text}\nn={n}", ha="center", va="center", fontsize=6,
                        color="white" if dark else "black")  # fmt: skip
    ax.set_title(f"success@{report['threshold']} (%) per {field.removeprefix('by_')}")
    fig.colorbar(im, ax=ax, fraction=0.046)
    return _save(fig, path)


def failure_bars(report: dict, path: Path) -> Path:
    """Per metric a group of bars, one per editor: % of applicable edits past the line."""
    fails = report["failures"]
    editors = list(fails)
    metrics = list(next(iter(fails.values()))["metrics"]) if fails else []
    x = np.arange(len(metrics))
    width = 0.8 / max(1, len(editors))
    fig, ax = plt.subplots(figsize=(1.6 * len(metrics) + 3, 3.6))
    for k, e in enumerate(editors):
        vals = [fails[e]["metrics"][m]["rate"] or 0.0 for m in metrics]
        ax.bar(x + k * width, vals, width, label=e)
    ax.set_xticks(x + width * (len(editors) - 1) / 2, metrics)
    ax.set_ylim(0, 100)
    ax.set_ylabel("% of applicable edits past the line")
    ax.legend(fontsize=7)
    ax.set_title("shift-metric failures per editor")
    return _save(fig, path)


def write_edit_plots(report: dict, folder: Path) -> list[Path]:
    """Every figure with data into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    if not report["editors"]:
        return []
    paths = [success_bars(report, folder / "success.png"),
             criteria_bars(report, folder / "criteria.png"),
             group_heatmap(report, "by_category", folder / "categories.png"),
             group_heatmap(report, "by_family", folder / "families.png")]  # fmt: skip
    board = report["pairwise"]["leaderboard"]
    if board:
        paths.append(win_matrix_plot(board, folder / "wins.png"))
    paths.append(failure_bars(report, folder / "failures.png"))
    return paths
