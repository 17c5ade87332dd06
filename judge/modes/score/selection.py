"""Best-of-n: choose the image a multi-image submission is reported by.

Rules (the reference design keeps the highest-scored of four images):
- ``objective_then_subjective`` (default): highest image-side checklist rate, ties broken
  by the mean subjective image score;
- ``subjective_then_objective``: the same keys in the other order;
- ``first``: always the first image.
Unscored keys count as -1; remaining ties go to the lowest index.

Example:
    >>> select([[50.0, 3.0], [75.0, 2.5], [75.0, 4.0]], "objective_then_subjective")
    2
"""

from __future__ import annotations

from judge.domain.result import DimensionScore, ObjectiveSide


def selection_key(
    rule: str, objective: ObjectiveSide, subjective: dict[str, DimensionScore]
) -> list[float]:
    """The comparison key of one image under ``rule``."""
    rate = objective.rate if objective.rate is not None else -1.0
    scores = [d.score for d in subjective.values() if d.score is not None]
    mean = round(sum(scores) / len(scores), 4) if scores else -1.0
    if rule == "subjective_then_objective":
        return [mean, rate]
    if rule == "first":
        return []
    return [rate, mean]


def select(keys: list[list[float]], rule: str) -> int:
    """Index of the best key (first on ties)."""
    if rule == "first" or not keys:
        return 0
    best = 0
    for i, key in enumerate(keys):
        if key > keys[best]:
            best = i
    return best
