"""PNG plots for reports: judge vs human scatter, objective confusion matrices, ablation bars,
calibration curves. Uses matplotlib's non-interactive backend.

Example::

    scatter(pairs, Path("out/scatter.png"))
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np


def _clean(p: list, h: list) -> tuple[np.ndarray, np.ndarray]:
    keep = [(a, b) for a, b in zip(p, h, strict=True) if a is not None and b is not None]
    if not keep:
        return np.zeros(0), np.zeros(0)
    a, b = zip(*keep, strict=True)
    return np.asarray(a, float), np.asarray(b, float)


def scatter(pairs: dict[str, tuple[list, list]], path: Path, metrics: dict | None = None) -> Path:
    """One panel per target: judge score (x) against the human mean (y)."""
    names = [t for t, (p, _) in pairs.items() if any(v is not None for v in p)] or list(pairs)
    cols = min(3, max(1, len(names)))
    rows = (len(names) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 4 * rows), squeeze=False)
    for ax, name in zip(axes.flat, names, strict=False):
        x, y = _clean(*pairs[name])
        ax.scatter(x, y, s=18, alpha=0.7)
        ax.plot([1, 5], [1, 5], color="grey", lw=0.8, ls="--")
        ax.set_xlim(0.8, 5.2)
        ax.set_ylim(0.8, 5.2)
        rho = (metrics or {}).get(name, {}).get("spearman")
        ax.set_title(f"{name}  (n={len(x)}, ρ={rho:.2f})" if rho is not None else name)
        ax.set_xlabel("judge")
        ax.set_ylabel("human mean")
        if not len(x):  # an empty panel says so instead of looking like a blank result
            ax.text(3, 3, "no data: no item has both a judge score\nand a label (report.md "
                    "says why)", ha="center", va="center", fontsize=9, color="#555555")
    for ax in list(axes.flat)[len(names) :]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def confusion(objective: dict, path: Path) -> Path | None:
    """Confusion matrices of the objective checks per modality."""
    sides = [s for s in ("prompt", "image", "overall") if s in objective]
    if not sides:
        return None
    fig, axes = plt.subplots(1, len(sides), figsize=(3.6 * len(sides), 3.4), squeeze=False)
    for ax, side in zip(axes.flat, sides, strict=True):
        m = objective[side]
        grid = np.array([[m["tp"], m["fn"]], [m["fp"], m["tn"]]])
        ax.imshow(grid, cmap="Blues")
        for (r, c), v in np.ndenumerate(grid):
            ax.text(c, r, str(v), ha="center", va="center")
        ax.set_xticks([0, 1], ["judge: pass", "judge: fail"])
        ax.set_yticks([0, 1], ["expert: pass", "expert: fail"])
        acc = m.get("accuracy")
        ax.set_title(f"{side} (acc {acc:.3f})" if acc is not None else side)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def ablation_bars(ablation: dict, path: Path) -> Path:
    """Per variant, on two axes of their own: the error (MAE, scale points, lower is better)
    and the agreement (within-1 share and Spearman, 0–1, higher is better). A missing value is
    left out (no bar), never drawn as 0."""
    rows = ablation["rows"]
    names = list(rows)
    x = np.arange(len(names))
    fig, (err, agree) = plt.subplots(
        1, 2, figsize=(max(7, 2.4 * len(names)), 3.8), gridspec_kw={"width_ratios": [1, 2]}
    )
    for ax, metrics, label in (
        (err, ["mae"], "MAE (scale points; lower is better)"),
        (agree, ["within1", "spearman"], "agreement (higher is better)"),
    ):
        width = 0.8 / len(metrics)
        for i, metric in enumerate(metrics):
            vals = [rows[n].get(metric) for n in names]
            keep = [j for j, v in enumerate(vals) if v is not None]
            offset = (i - (len(metrics) - 1) / 2) * width
            ax.bar(x[keep] + offset, [vals[j] for j in keep], width=width, label=metric)
        ax.set_xticks(x, names)
        ax.set_ylabel(label)
        ax.legend()
    agree.set_ylim(min(0.0, agree.get_ylim()[0]), 1.0)
    fig.suptitle(f"ablation: {ablation['kind']}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def calibration_curve(pairs: dict[str, tuple[list, list]], maps: dict, path: Path) -> Path:
    """Binned human mean against judge score, with each fitted map drawn over it."""
    from eval.metaeval.calibration import apply_map

    fig, ax = plt.subplots(figsize=(5, 4.5))
    grid = np.linspace(1, 5, 41)
    for name, (p, h) in pairs.items():
        x, y = _clean(p, h)
        if len(x) == 0:
            continue
        bins = np.clip(np.round(x * 2) / 2, 1, 5)
        centers = sorted(set(bins))
        ax.plot(centers, [y[bins == c].mean() for c in centers], "o-", label=f"{name} (binned)")
        m = next((v for v in maps.values() if v.get("target") == name), None)
        if m:
            ax.plot(grid, apply_map(m, list(grid)), "--", label=f"{name} map ({m['method']})")
    ax.plot([1, 5], [1, 5], color="grey", lw=0.8)
    ax.set_xlabel("judge score")
    ax.set_ylabel("human mean")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
