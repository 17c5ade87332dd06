"""Leaderboard figures (PNG, matplotlib's Agg backend): scores with their 95% CIs, and the
pairwise win-rate matrix as a heatmap (grey where two models never met).

Example::

    write_plots(board, Path("plots"))   # plots/bt-preference.png, plots/win-matrix-preference.png
"""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np


def slug(text: str) -> str:
    """``text`` as a file-name part (runs of other characters become ``_``).

    >>> slug("prompt matching / v2")
    'prompt_matching_v2'
    """
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "criterion"


def score_plot(board: dict, path: Path) -> Path:
    """Horizontal bars of the scores, best on top, with CI whiskers when present."""
    rows = board["models"]
    names = [r["model"] for r in rows][::-1]
    scores = np.array([np.nan if r["score"] is None else r["score"] for r in rows][::-1])
    cis = [r["ci95"] or [s, s] for r, s in zip(rows[::-1], scores, strict=True)]
    lo, hi = np.array([c[0] for c in cis], float), np.array([c[1] for c in cis], float)
    err = np.vstack([np.maximum(scores - lo, 0), np.maximum(hi - scores, 0)])
    fig, ax = plt.subplots(figsize=(6.4, 0.35 * len(names) + 1.4))
    base = 1000.0 if board["method"] == "elo" else 0.0
    ax.barh(names, scores - base, left=base, xerr=err, color="#4c72b0", capsize=3)
    ax.set_xlabel(
        {"bt": "Bradley–Terry score (sum 100)", "elo": "Elo rating"}.get(
            board["method"], "win rate (%)"
        )
    )
    ax.set_title(f"{board['criterion']} · {board['n_votes']} votes · 95% bootstrap CI")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def win_matrix_plot(board: dict, path: Path) -> Path:
    """Heatmap of the share of games the row model won against the column model."""
    names = board["win_matrix"]["models"]
    grid = np.array(
        [[np.nan if x is None else x for x in row] for row in board["win_matrix"]["rates"]],
        dtype=float,
    )
    order = [names.index(r["model"]) for r in board["models"]]
    grid = grid[np.ix_(order, order)]
    labels = [names[i] for i in order]
    size = 0.45 * len(labels) + 2.5
    fig, ax = plt.subplots(figsize=(size + 1, size))
    cmap = matplotlib.colormaps["RdBu"].with_extremes(bad="#dddddd")
    im = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=0, vmax=1)
    ax.set_xticks(range(len(labels)), labels, rotation=60, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    if len(labels) <= 12:
        for i, j in zip(*np.where(np.isfinite(grid)), strict=True):
            ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=7)
    ax.set_title(f"win rate of row vs column · {board['criterion']}")
    fig.colorbar(im, ax=ax, fraction=0.046)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_plots(board: dict, folder: Path) -> list[Path]:
    """Both figures of one leaderboard into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    crit = slug(str(board["criterion"]))
    return [
        score_plot(board, folder / f"{board['method']}-{crit}.png"),
        win_matrix_plot(board, folder / f"win-matrix-{crit}.png"),
    ]
