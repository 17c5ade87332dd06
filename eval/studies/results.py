"""One ``results.jsonl`` line per (task, prompter, backend), built from the judge's Result.

The line shape is fixed by the studies contract (``STUDIES.md`` §4, README "Studies"):
identity (task, category, primitives, prompter, kind, condition, backend), ``status`` and
``reason``, the ``prompt``, the image paths (relative to the output folder), the judge's
``selected_image``, a ``summary`` of the numbers the report aggregates, the full ``result`` and
``usage`` per stage. Items that never reached a score carry ``status`` ``prompt_failed``,
``generation_failed``, ``judge_failed`` or ``blocked`` and a ``reason``; their summary is empty.

Example:
    >>> from judge.domain.result import Result
    >>> result = Result.model_validate({
    ...     "submission_id": "s1", "status": "scored",
    ...     "subjective": {"prompt": {"clarity": {"score": 4}, "x": {"score": None}}, "image": {}},
    ...     "objective": {"prompt": {"rate": 50.0, "items": [
    ...         {"id": "c1", "verdict": True, "primitive": "text"},
    ...         {"id": "c2", "verdict": False, "primitive": "quantity"}]},
    ...                   "image": {"rate": None, "items": []}}})
    >>> summarize(result)["subjective_prompt"], judge_usage(result)["calls"]
    (4.0, 0)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from eval.kit.client import Scored
    from judge.domain.result import DimensionScore, Result

ZERO_USAGE = {"calls": 0, "cost_usd": 0.0, "latency_s": 0.0}


def _mean(scores: dict[str, DimensionScore]) -> float | None:
    values = [d.score for d in scores.values() if d.score is not None]
    return round(sum(values) / len(values), 4) if values else None


def summarize(result: Result) -> dict[str, Any]:
    """The report's numbers from a Result: subjective means, objective rates, the
    per-dimension scores and the per-check verdicts of both modalities."""
    subj, obj = result.subjective, result.objective
    checks: dict[str, dict[str, Any]] = {}
    for side in ("prompt", "image"):
        for item in obj[side].items if side in obj else []:
            row = checks.setdefault(
                item.id, {"id": item.id, "primitive": item.primitive, "prompt": None, "image": None}
            )
            row[side] = item.verdict
            row["primitive"] = row["primitive"] or item.primitive
    return {
        "subjective_prompt": _mean(subj.get("prompt") or {}),
        "subjective_image": _mean(subj.get("image") or {}),
        "objective_prompt_rate": obj["prompt"].rate if "prompt" in obj else None,
        "objective_image_rate": obj["image"].rate if "image" in obj else None,
        "subjective": {
            side: {dim: d.score for dim, d in (subj.get(side) or {}).items()}
            for side in ("prompt", "image")
        },
        "checks": list(checks.values()),
    }


def judge_usage(result: Scored) -> dict[str, Any]:
    """The judge stage's usage from a result's ``usage``."""
    u = result.usage
    return {
        "calls": u.llm_calls,
        "cost_usd": u.cost_usd,
        "latency_s": u.latency_s,
        "cache_hits": u.cache_hits,
    }


def base_line(task: Any, prompter: Any, backend_id: str) -> dict[str, Any]:
    """The identity part of a line, with every other field empty."""
    return {
        "task_id": task.id,
        "category": str(task.category),
        "primitives": [str(p) for p in task.tags.primitives],
        "prompter": prompter.id,
        "prompter_kind": prompter.kind,
        "condition": prompter.condition,
        "backend": backend_id,
        "status": None,
        "reason": None,
        "prompt": None,
        "images": [],
        "selected_image": None,
        "summary": None,
        "result": None,
        "usage": {
            "prompter": dict(ZERO_USAGE),
            "generation": dict(ZERO_USAGE),
            "judge": dict(ZERO_USAGE),
        },
    }


def scored_line(line: dict[str, Any], result: Result, note: str | None) -> dict[str, Any]:
    """Fill a line from the judge's Result (kept whole as its JSON, ``result.to_dict()``);
    ``note`` (e.g. fewer images than asked) is kept as the reason when the judge gave none."""
    line.update(
        status=result.status,
        reason=result.reason or note,
        selected_image=result.selected_image,
        summary=summarize(result) if result.status != "blocked" else None,
        result=result.to_dict(),
    )
    line["usage"]["judge"] = judge_usage(result)
    return line
