"""The AVT AI-image ratings layout (labels.csv + images/) as image exemplars.

Scores are the published crowd means on the study's own 1–5 scales (``prompt_matching``,
``appeal``, ``realism``, ``quality``); a scale an image was not rated on is left out. The
dataset has no written rationales, so none are invented: each exemplar carries only a note
of where its numbers come from.

Example::

    recs = records(Path("../shared/data/avt-dev"))
    recs[0].scores  # {'prompt_matching': 4.73, 'appeal': 2.64, 'realism': 2.05, 'quality': 2.28}
"""

from __future__ import annotations

import csv
from pathlib import Path

from memory.exemplar import ExemplarError, ExemplarRecord

SCALES = ("prompt_matching", "appeal", "realism", "quality")


def _float(value: str | None) -> float | None:
    try:
        return float(value) if value not in (None, "") else None
    except ValueError:
        return None


def records(folder: Path, scales: tuple[str, ...] = SCALES) -> list[ExemplarRecord]:
    """One image exemplar per row of ``labels.csv`` whose image file exists."""
    labels = folder / "labels.csv"
    if not labels.is_file():
        raise ExemplarError(f"{labels}: not found (expected the AVT layout: labels.csv, images/)")
    out: list[ExemplarRecord] = []
    with open(labels, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            scores = {s: v for s in scales if (v := _float(row.get(f"{s}_mean"))) is not None}
            if not scores or not (folder / row["image"]).is_file():
                continue
            out.append(
                ExemplarRecord(
                    id=row["image"].removeprefix("images/").removesuffix(".png"),
                    modality="image",
                    image=row["image"],
                    prompt=row.get("prompt") or None,
                    scores={k: round(v, 4) for k, v in scores.items()},
                    meta={
                        "generator": row.get("generator"),
                        "prompt_id": row.get("prompt_id"),
                        "is_real_photo": row.get("is_real_photo") == "1",
                        "source": "AVT crowd mean opinion scores (no written rationale)",
                    },
                )
            )
    if not out:
        raise ExemplarError(f"{labels}: no rows with scores and an existing image")
    return out
