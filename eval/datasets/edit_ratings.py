"""``edit-ratings``: human ratings of image edits, for meta-evaluating the ``edit`` mode.

JSON lines (``edits.jsonl`` in the folder, or the file itself), one edit per line; image
paths are relative to the file::

    {"id": "e1", "instruction": "Make the car blue.", "source_image": "src/e1.png",
     "edited_image": "out/e1-x.png", "editor": "model-x",
     "ratings": {"instruction_following": {"r1": 4, "r2": 5},
                 "image_consistency": {"r1": 3, "r2": 3}, "visual_quality": {"r1": 4}}}

Ratings are 1–5 per criterion per rater (rater ids are free strings, the same across
items). Each criterion's label is the mean over raters; the human success of an edit is
"every criterion's mean ≥ threshold" (the judge's ``success.threshold``). Targets are the
three criteria, read from the EditResult; the report adds success-rate agreement (judge vs
human success per item: accuracy, both success rates) and the reference figures of the
tricky-edits study beside ours.

Example::

    items = EditRatingsDataset().load(Path("data/edits.jsonl"))
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from eval.datasets.base import EvalItem, Target
from memory.exemplar import ExemplarRecord
from memory.io.jsonl import read_jsonl

FILE = "edits.jsonl"
CRITERIA = ("instruction_following", "image_consistency", "visual_quality")
REFERENCE = {
    "source": "TECCI tricky-edits study: Gemini auto-rater vs humans (after z-score calibration)",
    "judge_vs_human_spearman": {
        "instruction_following": 0.549,
        "image_consistency": 0.524,
        "visual_quality": 0.607,
    },
    "human_vs_human": {
        "instruction_following": 0.612,
        "image_consistency": 0.592,
        "visual_quality": 0.556,
    },
}


class EditRatingsDataset:
    """Adapter for human ratings of edits."""

    name = "edit-ratings"
    skills: ClassVar[list[str]] = []
    group_key = "id"

    def __init__(self, threshold: float = 4.0) -> None:
        self.threshold = float(threshold)
        self.targets = [Target(c, "edit", c) for c in CRITERIA]

    @staticmethod
    def _path(data: Path) -> Path:
        return data if data.suffix == ".jsonl" else data / FILE

    def labels_path(self, data: Path) -> Path:
        """The ratings file of the split."""
        return self._path(data)

    def load(self, data: Path) -> list[EvalItem]:
        """One item per edit; the submission is an edit
        (docs/design.md#edit-submission-and-result)."""
        path = self._path(data)
        if not path.is_file():
            raise FileNotFoundError(f"{path} not found (edit-ratings expects {FILE})")
        return [self._item(row, path, n) for n, row in read_jsonl(path)]

    def _item(self, row: Any, path: Path, n: int) -> EvalItem:
        where = f"{path}:{n}"
        if not isinstance(row, dict):
            raise ValueError(f"{where}: expected a JSON object")
        for key in ("id", "instruction", "source_image", "edited_image", "ratings"):
            if not row.get(key):
                raise ValueError(f"{where}: field {key!r} is missing or empty")
        for key in ("source_image", "edited_image"):
            if not (path.parent / row[key]).is_file():
                raise ValueError(f"{where}: field {key!r}: {row[key]!r} not found next to the file")
        ratings: dict[str, dict[str, float]] = {}
        for crit, by_rater in row["ratings"].items():
            if crit not in CRITERIA:
                raise ValueError(f"{where}: unknown criterion {crit!r}; expected {list(CRITERIA)}")
            try:
                ratings[crit] = {str(r): float(v) for r, v in by_rater.items() if v is not None}
            except (TypeError, ValueError, AttributeError):
                raise ValueError(f"{where}: ratings.{crit} must map rater ids to 1–5") from None
            if any(not 1 <= v <= 5 for v in ratings[crit].values()):
                raise ValueError(f"{where}: ratings.{crit}: ratings must be within 1–5")
        labels = {c: sum(r.values()) / len(r) for c, r in ratings.items() if r}
        submission = {
            "mode": "edit",
            "id": str(row["id"]),
            "instruction": row["instruction"],
            "source_image": row["source_image"],
            "images": [row["edited_image"]],
            "editor": row.get("editor"),
        }
        return EvalItem(
            id=str(row["id"]),
            submission=submission,
            base_dir=path.parent,
            labels=labels,
            ratings=ratings,
            slices={"editor": str(row.get("editor") or "unknown")},
            group=str(row["id"]),
            key={"id": str(row["id"])},
        )

    @staticmethod
    def prediction_extra(result: dict[str, Any]) -> dict[str, Any]:
        """What a prediction keeps of an EditResult beyond the criteria: success."""
        return {"success": (result.get("success") or {}).get("passed")}

    def extra_report(
        self, data: Path, items: list[EvalItem], predictions: list[dict], n_boot: int, seed: int
    ) -> dict[str, Any]:
        """Success-rate agreement and the reference figures."""
        preds = {p["id"]: p for p in predictions}
        pairs = []
        for item in items:
            judged = (preds.get(item.id) or {}).get("success")
            if judged is None or len(item.labels) < len(CRITERIA):
                continue
            human = all(v >= self.threshold for v in item.labels.values())
            pairs.append((bool(judged), human))
        n = len(pairs)
        agree = sum(1 for j, h in pairs if j == h)
        return {
            "edit": {
                "threshold": self.threshold,
                "success_items": n,
                "coverage": f"{n}/{len(items)}",
                "success_agreement": round(agree / n, 4) if n else None,
                "judge_success_rate": round(sum(j for j, _ in pairs) / n, 4) if n else None,
                "human_success_rate": round(sum(h for _, h in pairs) / n, 4) if n else None,
                "reference": REFERENCE,
            }
        }

    def memories(self, data: Path) -> dict[str, tuple[list[ExemplarRecord], Path]]:
        """None: edit criteria use no exemplar memory."""
        return {}
