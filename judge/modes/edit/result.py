"""The edit result contract (docs/design.md#edit-submission-and-result).

Example:
    >>> Success(threshold=4.0, passed=None, reason="visual_quality unscored").passed is None
    True
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from judge.domain.result import (
    DimensionScore,
    Provenance,
    ResultModel,
    SafetyReport,
    SafetyVerdict,
    Selection,
    Status,
    Usage,
)
from judge.domain.rows import edit_row


class Success(ResultModel):
    """Whether every (calibrated) criterion reached the threshold; null when one is unscored."""

    _always = ("passed",)

    threshold: float
    passed: bool | None = None
    reason: str | None = None


class MetricResult(ResultModel):
    """One shift metric: its value, whether it applies to this edit, and why not."""

    _always = ("value", "applicable")

    value: float | None = None
    applicable: bool = True
    reason: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)


class EditImageResult(ResultModel):
    """Everything judged about one edited image of a best-of-n edit."""

    index: int
    criteria: dict[str, DimensionScore] = Field(default_factory=dict)
    success: Success | None = None
    metrics: dict[str, MetricResult] = Field(default_factory=dict)
    safety: SafetyVerdict | None = None
    selection_key: list[float] = Field(default_factory=list)


class EditResult(ResultModel):
    """What the judge returns for one edit."""

    submission_id: str
    mode: Literal["edit"] = "edit"
    status: Status
    reason: str | None = None
    editor: str | None = None
    criteria: dict[str, DimensionScore] = Field(default_factory=dict)
    success: Success | None = None
    metrics: dict[str, MetricResult] = Field(default_factory=dict)
    images: list[EditImageResult] = Field(default_factory=list)
    selected_image: int | None = None
    selection: Selection | None = None
    safety: SafetyReport = Field(default_factory=SafetyReport)
    provenance: Provenance = Field(default_factory=Provenance)
    usage: Usage = Field(default_factory=Usage)

    def to_row(self) -> dict[str, Any]:
        """One flat dict (status, each criterion, usage) for a dataframe."""
        return edit_row(self)
