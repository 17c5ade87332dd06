"""The ComparisonResult contract (docs/design.md#comparison).

Example:
    >>> r = CriterionResult(winner="tie", position_consistent=False)
    >>> r.model_dump(exclude_none=True)["winner"]
    'tie'
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from judge.domain.result import (
    Cause,
    JudgedItem,
    Provenance,
    ResultModel,
    SafetyReport,
    Status,
    Usage,
)
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


class CriterionResult(JudgedItem):
    """The verdict on one criterion: a winner when both orders agree, else a tie."""

    _always = ("winner",)

    winner: Literal["a", "b", "tie"] | None = None
    position_consistent: bool | None = None
    orders: list[OrderAnswer] = Field(default_factory=list)
    rationale: str | None = None
    reason: str | None = None
    cause: Cause | None = None
    skill: str | None = None


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
