"""``expert-jsonl``: the reference design's validation-set shape, one item per line.

Schema (one JSON object per line)::

    {"id": "co_106-gpt52-flux",
     "task": {... a Task (docs/design.md#submission-and-result-mode-score) and its checklist ...},
     "prompt": "...", "image": "images/co_106.png",          # relative to the file
     "backend": "flux-pro", "prompter": {"id": "gpt-5.2", "kind": "mllm"},
     "subjective": {"prompt": {"instructional_clarity": {"mean": 3.67, "raters": [4, 3, 4]}},
                    "image":  {"mood_atmosphere": {"mean": 4.0}}},
     "objective":  {"prompt": {"c1": true, "c2": false}, "image": {"c1": true}}}

``image`` may be null (prompt-only items); ``raters`` are optional individual scores (in
the same rater order on every item when present); ``objective`` labels are per checkpoint.
Targets are the subjective dimensions found in the file, predicted by the engine's cards of
the same name.

Example::

    items = ExpertJsonlDataset().load(Path("tests/eval/fixtures/expert"))
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from eval.datasets.base import EvalItem, Target
from memory.exemplar import ExemplarRecord
from memory.io.jsonl import read_jsonl, where

FILE = "items.jsonl"


class ExpertJsonlDataset:
    """Adapter for ``<dir>/items.jsonl`` (or a path to a .jsonl file)."""

    name = "expert-jsonl"
    skills: ClassVar[list[str]] = []
    group_key = "task_id"

    def __init__(self) -> None:
        self.targets: list[Target] = []

    @staticmethod
    def _path(data: Path) -> Path:
        return data if data.suffix == ".jsonl" else data / FILE

    def _rows(self, data: Path) -> list[dict]:
        path = self._path(data)
        if not path.is_file():
            raise FileNotFoundError(f"{path} not found (expert-jsonl expects items.jsonl)")
        rows = []
        for n, row in read_jsonl(path):
            for key in ("id", "task", "prompt"):
                if key not in row:
                    raise ValueError(f"{where(path, n)}: missing {key!r}")
            rows.append(row)
        return rows

    def labels_path(self, data: Path) -> Path:
        """The labelled file of the split."""
        return self._path(data)

    def load(self, data_dir: Path) -> list[EvalItem]:
        """Items with their subjective means, raters and objective labels."""
        path = self._path(data_dir)
        base = path.parent
        items: list[EvalItem] = []
        seen: dict[str, str] = {}
        for row in self._rows(data_dir):
            labels, ratings = {}, {}
            for modality, dims in (row.get("subjective") or {}).items():
                for dim, lab in dims.items():
                    seen.setdefault(dim, modality)
                    if lab.get("mean") is not None:
                        labels[dim] = float(lab["mean"])
                    if lab.get("raters"):
                        ratings[dim] = {
                            f"r{i}": float(v) for i, v in enumerate(lab["raters"]) if v is not None
                        }
            submission = {
                "id": row["id"],
                "task": row["task"],
                "prompt": row["prompt"],
                "images": [row["image"]] if row.get("image") else [],
                "backend": row.get("backend"),
            }
            if row.get("prompter"):
                submission["prompter"] = row["prompter"]
            items.append(
                EvalItem(
                    id=row["id"],
                    submission=submission,
                    base_dir=base,
                    labels=labels,
                    ratings=ratings,
                    objective={
                        m: {k: bool(v) for k, v in d.items()}
                        for m, d in (row.get("objective") or {}).items()
                    },
                    slices={
                        "category": row["task"].get("category", "?"),
                        "backend": row.get("backend") or "?",
                        "prompter": (row.get("prompter") or {}).get("kind", "?"),
                    },
                    group=row["task"].get("id"),
                    key={"id": row["id"]},
                )
            )
        self.targets = [Target(d, m, d) for d, m in seen.items()]
        return items

    def memories(self, data_dir: Path) -> dict[str, tuple[list[ExemplarRecord], Path]]:
        """``prompt-<category>`` and ``image-<category>`` memories from the expert means."""
        base = self._path(data_dir).parent
        out: dict[str, tuple[list[ExemplarRecord], Path]] = {}
        for row in self._rows(data_dir):
            task = row["task"]
            for modality in ("prompt", "image"):
                dims = (row.get("subjective") or {}).get(modality) or {}
                scores = {d: float(v["mean"]) for d, v in dims.items() if v.get("mean") is not None}
                if not scores or (modality == "image" and not row.get("image")):
                    continue
                rec = ExemplarRecord(
                    id=f"{row['id']}:{modality}",
                    category=task.get("category"),
                    task_brief=task.get("brief", ""),
                    modality=modality,
                    prompt=row["prompt"],
                    image=row.get("image") if modality == "image" else None,
                    scores=scores,
                    meta={"task_id": task.get("id")},
                )
                name = f"{modality}-{task.get('category')}"
                out.setdefault(name, ([], base))[0].append(rec)
        return out
