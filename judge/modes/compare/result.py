"""The ComparisonResult contract (docs/design.md#comparison).

Example:
    >>> r = CriterionResult(winner="tie", position_consistent=False)
    >>> r.model_dump(exclude_none=True)["winner"]
    'tie'
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from judge.domain.result import Cause, Provenance, ResultModel, SafetyReport, Status, Usage
from judge.domain.rows import comparison_row


class OrderAnswer(ResultModel):
    """One order's answer, mapped back to the contenders: who was shown first, who won."""

    _always = ("choice",)

    first: Literal["a", "b"]
    choice: Literal["a", "b", "tie"] | None = None
    rationale: str | None = None
    reason: str | None = None
    votes: dict[str, str | None] | None = None
    agreement: float | None = None


class CriterionResult(ResultModel):
    """The verdict on one criterion: a winner when both orders agree, else a tie."""

    _always = ("winner",)

    winner: Literal["a", "b", "tie"] | None = None
    position_consistent: bool | None = None
    orders: list[OrderAnswer] = Field(default_factory=list)
    rationale: str | None = None
    reason: str | None = None
    cause: Cause | None = None
    skill: str | None = None
    confidence: float | None = None
    """0–1: how sure the judge is of this answer (docs/confidence.md); null when it could not
    be had (``confidence_reason``, or the criterion's own ``reason``); absent unless asked for"""
    confidence_method: str | None = None
    """the method that estimated ``confidence`` (``samples:5``, ``swap``, ...)"""
    confidence_reason: str | None = None
    """why an answered item has no confidence (every sample failed, no log-probabilities)"""
    trusted: bool | None = None
    """whether a trust policy's judge was sure enough of this answer (docs/trust.md); absent
    unless a policy was applied"""
    abstained_by: str | None = None
    """when not trusted: the judge (stage) that was not sure enough, or ``policy``"""
    interval: list[float] | None = None
    """ratings under a policy with intervals: ``[lo, hi]`` holding the people's rating"""
    stage: str | None = None
    """a cascade policy: the judge (stage) whose answer this is"""
    escalate: bool | None = None
    """a cascade policy: true when a later judge, not run, may still decide it"""


class ComparisonResult(ResultModel):
    """What the judge returns for one comparison."""

    comparison_id: str
    mode: Literal["compare"] = "compare"
    status: Status
    reason: str | None = None
    prompt_id: str | None = None
    models: dict[str, str | None] = Field(default_factory=dict)
    criteria: dict[str, CriterionResult] = Field(default_factory=dict)
    safety: SafetyReport = Field(default_factory=SafetyReport)
    provenance: Provenance = Field(default_factory=Provenance)
    usage: Usage = Field(default_factory=Usage)

    def to_row(self) -> dict[str, Any]:
        """One flat dict (status, each criterion, usage) for a dataframe."""
        return comparison_row(self)

    def votes(self) -> list[dict[str, str]]:
        """The decided criteria as vote rows (``prompt_id, model_a, model_b, winner,
        criterion``) for ``judge leaderboard``; unscored criteria give no vote."""
        pid = self.prompt_id or self.comparison_id
        return [
            {
                "prompt_id": pid,
                "model_a": self.models.get("a") or "a",
                "model_b": self.models.get("b") or "b",
                "winner": c.winner,
                "criterion": name,
                "annotator": "judge",
            }
            for name, c in self.criteria.items()
            if c.winner is not None
        ]
