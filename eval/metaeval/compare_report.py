"""The metric comparison in ``report.md`` and as a plot (``systems_TARGET.png``: each
generator's human mean against each metric's mean).

Example::

    lines = markdown_lines(report)            # the "Compare metrics" sections
    made = system_plots(report, Path("out"))  # one PNG per target with systems
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

__all__ = ["markdown_lines", "system_plots"]

ITEM_COLS = ("spearman", "kendall", "pearson", "pairwise_accuracy")
SYSTEM_COLS = ("kendall", "pearson", "pairwise_accuracy")


def _f(v: Any) -> str:
    return "–" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))


def _ci(value: Any, ci: list | None) -> str:
    lo, hi = ci or [None, None]
    return _f(value) + (f" [{lo:.2f}, {hi:.2f}]" if lo is not None and hi is not None else "")


def _cell(v: Any) -> str:
    return str(v).replace("|", "\\|").replace("\n", " ")


def _ranked(names: list[str], sig: dict | None) -> list[str]:
    """Metrics in cluster order (then by the level's correlation), the rest after."""
    if not sig:
        return names
    corr = sig["correlation"]
    ranks = sig["clusters"]
    return sorted(
        names,
        key=lambda n: (ranks.get(n, 10**6), -(corr.get(n) if corr.get(n) is not None else -9), n),
    )


def _head(first: list[str], stats: tuple[str, ...], sig: dict | None) -> list[str]:
    """A table's header and rule: the first columns, the statistics, then rank, wins and
    losses when the level has significance tests."""
    cols = [*first, *stats, *(["rank", "wins", "losses"] if sig else [])]
    return ["| " + " | ".join(cols) + " |", "|---" * len(cols) + "|"]


def _sig_cells(sig: dict | None, name: str) -> list[str]:
    if not sig:
        return []
    wl = sig["wins_losses"].get(name, {})
    return [_f(sig["clusters"].get(name)), _f(wl.get("wins")), _f(wl.get("losses"))]


def _sig_note(sig: dict, level: str) -> str:
    note = (
        f"Rank: significance cluster at {level} level; wins/losses: metrics this one beats "
        f"(is beaten by) significantly. Test: {sig['test']}, {sig['n_resamples']} resamples; "
        f"statistic: {sig['statistic']}; correction: {sig['correction']}; α = {sig['alpha']}."
    )
    if sig.get("resolution"):
        note += f" **Too few resamples:** {sig['resolution']}."
    return note


def _target_lines(target: str, sec: dict) -> list[str]:
    names = list(sec["metrics"])
    cov = ", ".join(f"{m} {n}" for m, n in sec["coverage"].items())
    out = [
        "",
        f"## Compare metrics: {_cell(target)}",
        "",
        f"On the {sec['n_items']} items every metric scored (of {sec['n_labelled']} labelled; "
        f"items each metric scored: {cov}).",
    ]
    if sec.get("note"):
        return [*out, "", sec["note"]]
    item_sig = sec["significance"].get("item")
    out += ["", "### Item level (each metric against the human mean)", ""]
    out += _head(["metric", "source"], ITEM_COLS, item_sig)
    for m in _ranked(names, item_sig):
        fig = sec["metrics"][m]
        cells = [_f(fig.get(c)) for c in ITEM_COLS] + _sig_cells(item_sig, m)
        out.append(f"| {_cell(m)} | {fig['source']} | " + " | ".join(cells) + " |")
    if sec.get("pairwise_note"):
        out += ["", f"Note: {sec['pairwise_note']}."]
    if item_sig:
        out += ["", _sig_note(item_sig, "item")]
    sysd = sec.get("system")
    if sysd:
        sys_sig = sec["significance"].get("system")
        out += [
            "",
            "### System level (each generator's mean score against its mean human rating)",
            "",
            f"{sysd['n_systems']} systems, {sysd['n_items']} items "
            f"({', '.join(f'{s}: {n}' for s, n in sysd['items_per_system'].items())}). "
            "95% intervals: " + (sysd["resampling"] or "none") + ".",
        ]
        if sysd.get("note"):
            out += ["", f"**Few systems:** {sysd['note']}."]
        out += ["", *_head(["metric"], SYSTEM_COLS, sys_sig)]
        for m in _ranked(names, sys_sig):
            fig = sysd["metrics"][m]
            cells = [_ci(fig.get(c), fig["ci95"].get(c)) for c in SYSTEM_COLS]
            out.append(f"| {_cell(m)} | " + " | ".join(cells + _sig_cells(sys_sig, m)) + " |")
        out += [
            "",
            "Pairwise accuracy: the share of generator pairs ordered as the humans order them "
            "(a pair both sides tie counts as agreement, a pair one side ties as disagreement).",
        ]
        if sys_sig:
            out += ["", _sig_note(sys_sig, "system")]
    return out


def markdown_lines(report: dict[str, Any]) -> list[str]:
    """The comparison's sections (nothing when the report has none)."""
    comp = report.get("comparison")
    if not comp:
        return []
    out: list[str] = []
    for target, sec in comp["targets"].items():
        out += _target_lines(target, sec)
    return out


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:60] or "target"


def system_plots(report: dict[str, Any], out: Path) -> list[Path]:
    """Per target with systems: one panel per metric, each generator's mean score (x) against
    its mean human rating (y), labelled, with τ and r in the title."""
    made: list[Path] = []
    for target, sec in ((report.get("comparison") or {}).get("targets") or {}).items():
        sysd = sec.get("system")
        if not sysd:
            continue
        names = list(sysd["metrics"])
        cols = min(4, len(names))
        rows = (len(names) + cols - 1) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(3.8 * cols, 3.5 * rows), squeeze=False)
        human = sysd["human_means"]
        for ax, m in zip(axes.flat, names, strict=False):
            fig_m = sysd["metrics"][m]
            xs = [fig_m["means"][s] for s in sysd["systems"]]
            ys = [human[s] for s in sysd["systems"]]
            ax.scatter(xs, ys, s=28)
            ax.margins(0.2)
            for s, x, y in zip(sysd["systems"], xs, ys, strict=True):
                ax.annotate(s, (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
            ax.set_title(f"{m}\nτ={_f(fig_m['kendall'])}  r={_f(fig_m['pearson'])}", fontsize=9)
            ax.set_xlabel(f"{m}: system mean", fontsize=8)
            ax.set_ylabel("human mean", fontsize=8)
        for ax in list(axes.flat)[len(names) :]:
            ax.axis("off")
        fig.suptitle(f"{target}: generators, human mean against each metric's mean", fontsize=10)
        fig.tight_layout()
        path = out / f"systems_{_slug(target)}.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        made.append(path)
    return made
