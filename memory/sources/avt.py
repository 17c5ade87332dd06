"""The AVT AI-image ratings layout (labels.csv + images/) as image exemplars.

Scores are the published crowd means on the study's own 1–5 scales (``prompt_matching``,
``appeal``, ``realism``, ``quality``); a scale an image was not rated on is left out. The
dataset has no written rationales, so none are invented: each exemplar carries only a note
of where its numbers come from. When the folder has ``ratings.csv`` (every rater's score),
each exemplar also records how many raters scored it and how much they disagreed
(``score_n``, ``score_sd``); without that file the exemplars simply lack both.

Example::

    recs = records(Path("../shared/data/avt-dev"))
    recs[0].scores  # {'prompt_matching': 4.73, 'appeal': 2.64, 'realism': 2.05, 'quality': 2.28}
"""

from __future__ import annotations

import csv
import statistics
from collections import defaultdict
from pathlib import Path

from memory.exemplar import ExemplarError, ExemplarRecord

SCALES = ("prompt_matching", "appeal", "realism", "quality")
RATING_SCALES = {"image_quality": "quality"}  # ratings.csv's name -> the score's name


def _float(value: str | None) -> float | None:
    try:
        return float(value) if value not in (None, "") else None
    except ValueError:
        return None


def rater_spread(path: Path) -> dict[str, dict[str, tuple[float, int]]]:
    """image -> scale -> (standard deviation of the raters' scores, number of raters), from
    ``ratings.csv``; a rater who scored an image twice counts once, with their mean."""
    by: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    if not path.is_file():
        return {}
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            value = _float(row.get("rating"))
            if value is None:
                continue
            scale = RATING_SCALES.get(row["scale"], row["scale"])
            by[(row["image"], scale)][f"{row.get('study')}:{row.get('rater_id')}"].append(value)
    out: dict[str, dict[str, tuple[float, int]]] = defaultdict(dict)
    for (image, scale), raters in by.items():
        means = [sum(v) / len(v) for v in raters.values()]
        sd = statistics.stdev(means) if len(means) > 1 else 0.0
        out[image][scale] = (round(sd, 4), len(means))
    return dict(out)


def records(folder: Path, scales: tuple[str, ...] = SCALES) -> list[ExemplarRecord]:
    """One image exemplar per row of ``labels.csv`` whose image file exists."""
    labels = folder / "labels.csv"
    if not labels.is_file():
        raise ExemplarError(f"{labels}: not found (expected the AVT layout: labels.csv, images/)")
    spread = rater_spread(folder / "ratings.csv")
    out: list[ExemplarRecord] = []
    with open(labels, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            scores = {s: v for s in scales if (v := _float(row.get(f"{s}_mean"))) is not None}
            if not scores or not (folder / row["image"]).is_file():
                continue
            agree = {s: v for s, v in spread.get(row["image"], {}).items() if s in scores}
            out.append(
                ExemplarRecord(
                    id=row["image"].removeprefix("images/").removesuffix(".png"),
                    modality="image",
                    image=row["image"],
                    prompt=row.get("prompt") or None,
                    scores={k: round(v, 4) for k, v in scores.items()},
                    score_sd={s: sd for s, (sd, _) in agree.items()},
                    score_n={s: n for s, (_, n) in agree.items()},
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
