"""Public data contracts of the judge: tasks, submissions and results
(docs/design.md#submission-and-result-mode-score)."""

from judge.domain.result import (
    CheckItem,
    DimensionScore,
    ImageResult,
    ObjectiveSide,
    Provenance,
    Result,
    SafetyReport,
    SafetyVerdict,
    Usage,
)
from judge.domain.submission import Prompter, Submission
from judge.domain.task import Category, Checkpoint, Primitive, Task

__all__ = [
    "Category",
    "CheckItem",
    "Checkpoint",
    "DimensionScore",
    "ImageResult",
    "ObjectiveSide",
    "Primitive",
    "Prompter",
    "Provenance",
    "Result",
    "SafetyReport",
    "SafetyVerdict",
    "Submission",
    "Task",
    "Usage",
]
