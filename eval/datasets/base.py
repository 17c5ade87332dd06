"""What a dataset adapter gives the harness: items to score and the labels to score against.

The submission of an item is all the engine ever sees; labels stay in the item and are only
read by the metrics, so permuting a split's labels cannot change a prediction.

Example:
    >>> t = Target(name="appeal", modality="image", dimension="appeal")
    >>> t.read({"subjective": {"image": {"appeal": {"score": 3.5}}}})
    3.5
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from memory.exemplar import ExemplarRecord


@dataclass(frozen=True)
class Target:
    """A labelled quantity and where the judge's prediction for it is read from."""

    name: str
    modality: str  # "prompt" | "image" | "compare" (a ComparisonResult criterion)
    dimension: str  # the Result dimension (or compare criterion) holding the prediction

    def read(self, result: dict) -> float | None:
        """The predicted value from a Result dict (None when unscored); for a compare
        criterion the winner as 1.0 (a), 0.0 (b) or 0.5 (tie)."""
        if self.modality == "edit":  # an EditResult criterion
            crit = (result.get("criteria") or {}).get(self.dimension) or {}
            score = crit.get("score")
            return float(score) if score is not None else None
        if self.modality == "compare":
            crit = (result.get("criteria") or {}).get(self.dimension) or {}
            return {"a": 1.0, "b": 0.0, "tie": 0.5}.get(crit.get("winner") or "")
        dim = result.get("subjective", {}).get(self.modality, {}).get(self.dimension) or {}
        score = dim.get("score")
        return float(score) if score is not None else None

    def reason(self, result: dict) -> str | None:
        """Why the result holds no prediction for this target (None when it holds one)."""
        if self.read(result) is not None:
            return None
        if self.modality in ("edit", "compare"):
            crit = (result.get("criteria") or {}).get(self.dimension)
            if crit is None:
                return f"the result has no criterion {self.dimension!r}"
            return crit.get("reason") or f"criterion {self.dimension!r} undecided"
        side = result.get("subjective", {}).get(self.modality, {})
        dim = side.get(self.dimension)
        if dim is None:
            ran = ", ".join(sorted(side)) or "none"
            return (
                f"no card scores the {self.modality} dimension {self.dimension!r} (the result "
                f"has: {ran}); choose cards with --skills, or calibrate on your labels "
                "with --cv lopo or --memory-from"
            )
        if result.get("status") == "blocked":
            return "the safety gate blocked the item"
        return dim.get("reason") or "unscored (no reason given)"


@dataclass
class EvalItem:
    """One item: the submission to score, and its labels (never sent to the judge)."""

    id: str
    submission: dict[str, Any]
    base_dir: Path
    labels: dict[str, float] = field(default_factory=dict)
    ratings: dict[str, dict[str, float]] = field(default_factory=dict)
    objective: dict[str, dict[str, bool]] = field(default_factory=dict)
    slices: dict[str, str] = field(default_factory=dict)
    group: str | None = None
    key: dict[str, str] = field(default_factory=dict)
    where: str = ""  # where the item is written, for messages: "labels.csv line 7"


class Dataset(Protocol):
    """A dataset adapter (registered in :mod:`eval.datasets`)."""

    name: str
    targets: list[Target]
    skills: list[str]  # subjective cards to run; empty = the engine's enabled cards
    group_key: str | None  # exemplar meta key for leave-one-group-out, e.g. "prompt_id"

    def load(self, data_dir: Path) -> list[EvalItem]: ...  # pragma: no cover - protocol

    def labels_path(self, data: Path) -> Path:
        """The file the split's labels are read from."""
        ...  # pragma: no cover - protocol

    def memories(self, data_dir: Path) -> dict[str, tuple[list[ExemplarRecord], Path]]:
        """Exemplar records per memory name (with their base folder) built from a labelled
        split, for ``--memory-from``."""
        ...  # pragma: no cover - protocol
