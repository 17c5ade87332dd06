"""Community feedback → failure keywords, tallies, a bar chart, and shift metrics.

Each sample's remarks are labelled by the model (success / failure, a short keyword, a failure
family). Failure keywords are tallied; for each failure family that a shift metric measures
(colour → ``color_shift``, identity → ``face_identity``, structure → ``structure_distance``,
text → ``text_rendering``) the metric's applicability is decided on each image-to-image task's
instruction and the metric computed on its input and the community's output image.

Example:
    >>> tally([{"label": "failure", "keyword": "yellow tint"},
    ...        {"label": "success", "keyword": "sharp"}])
    {'yellow tint': 1}
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from eval.evidence.answers import FeedbackLabels
from eval.evidence.calls import JournalledCalls, StageCard
from skills.rendering import data_block, messages, text_part

FAMILY_METRICS = {
    "colour": "color_shift",
    "identity": "face_identity",
    "structure": "structure_distance",
    "text": "text_rendering",
}


async def label_feedback(
    calls: JournalledCalls, stage: StageCard, key: str, prompt: str, remarks: list[str]
) -> list[dict[str, Any]]:
    """One label per remark (remarks the model skipped stay unlabelled)."""
    if not remarks:
        return []
    listing = "\n".join(f"{i}. {r}" for i, r in enumerate(remarks))
    parts = [text_part(data_block("REQUEST", prompt or "(none)")),
             text_part(data_block("REMARKS", listing)), text_part("Label every remark.")]
    answer = await calls.ask(stage, key, messages(stage.system(), parts), FeedbackLabels)
    if answer is None:
        return []
    out: dict[int, dict[str, Any]] = {}
    for item in answer.items:
        if 0 <= item.index < len(remarks) and item.index not in out:
            out[item.index] = {"text": remarks[item.index], "label": item.label,
                               "keyword": item.keyword.strip().lower(), "family": item.family}
    return [out[i] for i in sorted(out)]


def tally(labels: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Failure keywords and their counts, most frequent first (ties by name)."""
    counts = Counter(x["keyword"] for x in labels if x["label"] == "failure")
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def family_counts(labels: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Failures per family that a shift metric measures."""
    counts = Counter(x["family"] for x in labels if x["label"] == "failure")
    return {f: counts[f] for f in FAMILY_METRICS if counts[f]}


def bar_chart(counts: dict[str, int], path: Path, top: int = 20) -> Path | None:
    """A horizontal bar chart of the most frequent failure keywords (PNG), or ``None``."""
    if not counts:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    items = list(counts.items())[:top][::-1]
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(items) + 1.2))
    ax.barh([k for k, _ in items], [v for _, v in items], color="#c0504d")
    ax.set_xlabel("failure reports")
    ax.set_title("Failure keywords in community feedback")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _shift(families: list[str], tasks: list[dict[str, Any]], out_dir: Path) -> dict[str, Any]:
    from PIL import Image

    from skills.metrics import compute_all

    report: dict[str, Any] = {}
    for fam in families:
        name = FAMILY_METRICS[fam]
        rows = []
        for t in tasks:
            outputs = (t.get("provenance") or {}).get("outputs") or []
            if not t.get("source_image") or not outputs:
                continue
            with Image.open(out_dir / t["source_image"]) as a, \
                 Image.open(out_dir / outputs[0]["path"]) as b:
                value = compute_all(a.convert("RGB"), b.convert("RGB"), t["brief"],
                                    metrics=[name])[name]
            rows.append({"task": t["id"], **value.as_dict()})
        values = [r["value"] for r in rows if r.get("applicable") and r.get("value") is not None]
        report[fam] = {
            "metric": name,
            "tasks": len(rows),
            "applicable": sum(bool(r.get("applicable")) for r in rows),
            "mean": round(sum(values) / len(values), 4) if values else None,
            "per_task": rows,
        }
    return report


async def shift_metrics(
    families: list[str], i2i_tasks: list[dict[str, Any]], out_dir: Path
) -> dict[str, Any]:
    """Per failure family: the metric's applicability and value on each i2i task that has
    an input and a community output (run off the event loop)."""
    return await asyncio.to_thread(_shift, families, i2i_tasks, out_dir)
