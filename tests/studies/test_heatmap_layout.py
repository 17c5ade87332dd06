"""``heatmap.png`` is legible (issue 38, item 11): every panel title lies inside the figure and
no tick label overlaps another panel or another label, with long prompter and backend names."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt

from eval.studies.report import plots

PROMPTERS = ["human-novice-writer", "terse-rewriter-v2", "expert-prompt-engineer", "baseline"]
BACKENDS = ["openai/gpt-image-1", "stable-diffusion-xl-turbo", "builtin/renderer-large"]


def report() -> dict:
    cells = [
        {"prompter": p, "backend": b, "category": "all",
         **{m: {"mean": 1 + (i + j) % 4 if m.startswith("subj") else 20.0 * (i + j),
                "ci95": None} for m in plots.LABELS}}
        for i, p in enumerate(PROMPTERS) for j, b in enumerate(BACKENDS)
    ]
    return {"cells": cells, "leaderboard": {}}


def test_heatmap_titles_fit_and_labels_do_not_overlap(tmp_path: Path, monkeypatch) -> None:
    figures: list[plt.Figure] = []
    real_close = plt.close
    monkeypatch.setattr(plots.plt, "close", lambda fig: figures.append(fig))
    try:
        plots.heatmap(report(), tmp_path / "heatmap.png")
    finally:
        monkeypatch.setattr(plots.plt, "close", real_close)
    (fig,) = figures
    renderer = fig.canvas.get_renderer()
    frame = fig.bbox
    boxes = []
    for ax in fig.axes:
        title = ax.title.get_window_extent(renderer)
        assert frame.x0 <= title.x0 and title.x1 <= frame.x1, ax.get_title()
        labels = [t for t in ax.get_xticklabels() + ax.get_yticklabels() if t.get_text()]
        boxes += [(ax, t.get_window_extent(renderer)) for t in labels]
        assert all(frame.x0 <= b.x0 and b.x1 <= frame.x1 and frame.y0 <= b.y0
                   for _, b in boxes if _ is ax)
    for ax, box in boxes:  # a tick label never runs into another panel's image
        for other in fig.axes:
            if other is not ax and other.images:
                assert not box.overlaps(other.get_window_extent(renderer)), box
    real_close(fig)


def test_an_empty_scatter_panel_says_no_data(tmp_path: Path, monkeypatch) -> None:
    """Meta-eval's scatter of a target with no scored item was a blank panel."""
    from eval.metaeval import plots as metaeval_plots

    figures: list[plt.Figure] = []
    real_close = plt.close
    monkeypatch.setattr(metaeval_plots.plt, "close", lambda fig: figures.append(fig))
    metaeval_plots.scatter({"quality": ([None, None], [3.0, 4.0])}, tmp_path / "s.png")
    (fig,) = figures
    texts = [t.get_text() for t in fig.axes[0].texts]
    real_close(fig)
    assert any(t.startswith("no data") for t in texts), texts
