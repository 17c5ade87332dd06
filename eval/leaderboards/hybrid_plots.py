"""The hybrid board's figure: per model, the hybrid, human-only and judge-only estimates with
their 95% intervals, one above the other (PNG, matplotlib's Agg backend).

Example::

    write_hybrid_plot(board, Path("plots"))   # plots/hybrid-bt-preference.png
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from eval.leaderboards.plots import slug

SERIES = (
    ("judge_only", "judge only", "#c44e52", -0.25),
    ("human_only", "human only", "#8c8c8c", 0.0),
    (None, "hybrid (PPI++)", "#4c72b0", 0.25),
)


def write_hybrid_plot(board: dict, folder: Path) -> Path:
    """Write ``hybrid-<method>-<criterion>.png`` into ``folder`` and return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = board["models"][::-1]
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(rows) + 1.6))
    for key, label, colour, shift in SERIES:
        ys, xs, lo, hi = [], [], [], []
        for n, row in enumerate(rows):
            part = row if key is None else row.get(key)
            if part and part.get("score") is not None and part.get("ci95"):
                ys.append(n + shift)
                xs.append(part["score"])
                lo.append(part["score"] - part["ci95"][0])
                hi.append(part["ci95"][1] - part["score"])
        ax.errorbar(xs, ys, xerr=[lo, hi], fmt="o", color=colour, label=label, capsize=3)
    ax.set_yticks(range(len(rows)), [r["model"] for r in rows])
    unit = "Bradley–Terry score (sum 100)" if board["method"] == "bt" else "win rate (%)"
    ax.set_xlabel(f"{unit}, 95% interval")
    ax.set_title(
        f"{board['criterion']} · {board['n_human_votes']} human + "
        f"{board['n_judge_votes']} judge votes"
    )
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    path = folder / f"hybrid-{board['method']}-{slug(str(board['criterion']))}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
