"""Flat rows of results, one dict per result, for a dataframe or a CSV.

Keys are stable and dotted by part: ``objective.image.rate``, ``subjective.image.appeal``,
``criteria.preference.winner``. An unscored value is ``None`` (its reason stays in
``to_dict()``).

Example:
    >>> from judge.domain.result import Result
    >>> row = result_row(Result(submission_id="s1", status="partial"))
    >>> row["submission_id"], row["objective.image.rate"], row["safety.passed"]
    ('s1', None, True)
"""

from __future__ import annotations

from typing import Any


def _usage(row: dict[str, Any], result: Any) -> dict[str, Any]:
    row.update(
        {
            "llm_calls": result.usage.llm_calls,
            "cost_usd": result.usage.cost_usd,
            "latency_s": result.usage.latency_s,
        }
    )
    return row


def result_row(result: Any) -> dict[str, Any]:
    """A score Result as one flat dict."""
    row: dict[str, Any] = {
        "submission_id": result.submission_id,
        "task_id": result.task_id,
        "category": result.category,
        "status": result.status,
        "safety.passed": result.safety.passed,
        "selected_image": result.selected_image,
    }
    for side in ("prompt", "image"):
        obj = result.objective.get(side)
        row[f"objective.{side}.rate"] = obj.rate if obj else None
        row[f"objective.{side}.scored"] = obj.scored if obj else 0
        row[f"objective.{side}.total"] = (obj.scored + obj.unscored) if obj else 0
    for side, dims in result.subjective.items():
        for name, dim in dims.items():
            row[f"subjective.{side}.{name}"] = dim.score
            _confidence(row, f"subjective.{side}.{name}", dim)
    return _usage(row, result)


def _confidence(row: dict[str, Any], column: str, item: Any) -> None:
    """``<column>.confidence`` when the item has a confidence method (else no column)."""
    if getattr(item, "confidence_method", None):
        row[f"{column}.confidence"] = item.confidence


def comparison_row(result: Any) -> dict[str, Any]:
    """A ComparisonResult as one flat dict."""
    row: dict[str, Any] = {
        "comparison_id": result.comparison_id,
        "prompt_id": result.prompt_id,
        "status": result.status,
        "model_a": result.models.get("a"),
        "model_b": result.models.get("b"),
        "safety.passed": result.safety.passed,
    }
    for name, crit in result.criteria.items():
        row[f"criteria.{name}.winner"] = crit.winner
        row[f"criteria.{name}.position_consistent"] = crit.position_consistent
        _confidence(row, f"criteria.{name}", crit)
    return _usage(row, result)


def edit_row(result: Any) -> dict[str, Any]:
    """An EditResult as one flat dict."""
    row: dict[str, Any] = {
        "submission_id": result.submission_id,
        "editor": result.editor,
        "status": result.status,
        "safety.passed": result.safety.passed,
        "success.passed": result.success.passed if result.success else None,
        "selected_image": result.selected_image,
    }
    for name, crit in result.criteria.items():
        row[f"criteria.{name}"] = crit.score
        _confidence(row, f"criteria.{name}", crit)
    for name, metric in result.metrics.items():
        row[f"metrics.{name}"] = metric.value if metric.applicable else None
    return _usage(row, result)
