"""The AVT AI-image ratings layout: labels.csv, ratings.csv, prompts.csv, images/.

Every image becomes a prompt-only task (the prompt is also the brief, no checklist) scored
by the opt-in AVT cards against the study's crowd means: ``prompt_matching``, ``appeal``,
``realism``, ``quality`` and ``appeal2`` (study 2's appeal, predicted by the appeal card).
Predictions keep the image path exactly as in labels.csv.

Example::

    items = AvtDataset().load(Path("../shared/data/avt-dev"))
    items[0].key   # {'image': 'images/craiyon/p01.png'}
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from pathlib import Path
from typing import Any, ClassVar

from eval.datasets.base import EvalItem, Target
from memory.exemplar import ExemplarRecord
from memory.io.utf8 import read_utf8
from memory.sources.avt import records as avt_records

TARGETS = ["prompt_matching", "appeal", "realism", "quality", "appeal2"]
RATING_SCALES = {"image_quality": "quality"}  # ratings.csv name → target name
SCALE_OF = {"appeal2": "appeal"}


def _float(v: str | None) -> float | None:
    try:
        return float(v) if v not in (None, "") else None
    except ValueError:
        return None


class AvtDataset:
    """Adapter for the AVT layout (see ../shared/data/avt-dev/README.md)."""

    name = "avt"
    targets: ClassVar[list[Target]] = [Target(t, "image", SCALE_OF.get(t, t)) for t in TARGETS]
    skills: ClassVar[list[str]] = [
        "avt_prompt_matching",
        "avt_appeal",
        "avt_realism",
        "avt_quality",
    ]
    group_key = "prompt_id"

    def labels_path(self, data: Path) -> Path:
        """``labels.csv`` of the folder (or the file itself)."""
        return data if data.suffix == ".csv" else data / "labels.csv"

    def load(self, data_dir: Path) -> list[EvalItem]:
        """One item per labels.csv row whose image exists."""
        labels = data_dir / "labels.csv"
        if not labels.is_file():
            raise FileNotFoundError(
                f"{labels} not found: --data must be an AVT folder "
                "(labels.csv, ratings.csv, images/)"
            )
        ratings = self._ratings(data_dir / "ratings.csv")
        items = []
        with io.StringIO(read_utf8(labels), newline="") as fh:
            for row in csv.DictReader(fh):
                image = row["image"]
                if not (data_dir / image).is_file():
                    continue
                submission: dict[str, Any] = {
                    "id": image,
                    "task": {
                        "id": row["prompt_id"],
                        "category": "OE",
                        "brief": row["prompt"],
                        "checklist": [],
                    },
                    "prompt": row["prompt"],
                    "images": [str((data_dir / image).resolve())],
                    "backend": row["generator"],
                }
                labels_row = {
                    t: v for t in TARGETS if (v := _float(row.get(f"{t}_mean"))) is not None
                }
                items.append(
                    EvalItem(
                        id=image,
                        submission=submission,
                        base_dir=data_dir,
                        labels=labels_row,
                        ratings=ratings.get(image, {}),
                        group=row["prompt_id"],
                        slices={
                            "generator": row["generator"],
                            "real_photo": "yes" if row.get("is_real_photo") == "1" else "no",
                        },
                        key={"image": image},
                    )
                )
        return items

    @staticmethod
    def _ratings(path: Path) -> dict[str, dict[str, dict[str, float]]]:
        """image → scale → rater → rating."""
        sums: dict[str, dict[str, dict[str, list[float]]]] = defaultdict(
            lambda: defaultdict(lambda: defaultdict(list))
        )
        if not path.is_file():
            return {}
        with io.StringIO(read_utf8(path), newline="") as fh:
            for row in csv.DictReader(fh):
                value = _float(row.get("rating"))
                if value is not None:
                    scale = RATING_SCALES.get(row["scale"], row["scale"])
                    sums[row["image"]][scale][f"{row['study']}:{row['rater_id']}"].append(value)
        # a rater who rated an image twice counts once, with the mean of the two ratings
        return {
            img: {
                sc: {r: sum(v) / len(v) for r, v in raters.items()} for sc, raters in scales.items()
            }
            for img, scales in sums.items()
        }

    def memories(self, data_dir: Path) -> dict[str, tuple[list[ExemplarRecord], Path]]:
        """The ``avt-image`` memory from this folder's labels (for ``--memory-from``)."""
        return {"avt-image": (avt_records(data_dir), data_dir)}
