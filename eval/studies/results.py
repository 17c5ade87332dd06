"""One ``results.jsonl`` line per (task, prompter, backend), built from the judge's Result.

The line shape is fixed by the studies contract (``STUDIES.md`` §4, README "Studies"):
identity (task, category, primitives, prompter, kind, condition, backend), ``status`` and
``reason``, the ``prompt``, the image paths (relative to the output folder), the judge's
``selected_image``, a ``summary`` of the numbers the report aggregates, the full ``result`` and
``usage`` per stage. Items that never reached a score carry ``status`` ``prompt_failed``,
``generation_failed``, ``judge_failed`` or ``blocked`` and a ``reason``; their summary is empty.

Example:
    >>> summarize({"subjective": {"prompt": {"clarity": {"score": 4}, "x": {"score": None}},
    ...                           "image": {}},
    ...            "objective": {"prompt": {"rate": 50.0, "items": [
    ...                 {"id": "c1", "verdict": True, "primitive": "text"},
    ...                 {"id": "c2", "verdict": False, "primitive": "quantity"}]},
    ...                          "image": {"rate": None, "items": []}}})["subjective_prompt"]
    4.0
"""

from __future__ import annotations

from typing import Any

ZERO_USAGE = {"calls": 0, "cost_usd": 0.0, "latency_s": 0.0}


def _mean(scores: dict[str, Any]) -> float | None:
    values = [
        v["score"] for v in scores.values() if isinstance(v, dict) and v.get("score") is not None
    ]
    return round(sum(values) / len(values), 4) if values else None


def summarize(result: dict[str, Any]) -> dict[str, Any]:
    """The report's numbers from a Result (JSON): subjective means, objective rates, the
    per-dimension scores and the per-check verdicts of both modalities."""
    subj = result.get("subjective") or {}
    obj = result.get("objective") or {}
    checks: dict[str, dict[str, Any]] = {}
    for side in ("prompt", "image"):
        for item in (obj.get(side) or {}).get("items", []):
            row = checks.setdefault(
                item["id"],
                {
                    "id": item["id"],
                    "primitive": item.get("primitive"),
                    "prompt": None,
                    "image": None,
                },
            )
            row[side] = item.get("verdict")
            row["primitive"] = row["primitive"] or item.get("primitive")
    return {
        "subjective_prompt": _mean(subj.get("prompt") or {}),
        "subjective_image": _mean(subj.get("image") or {}),
        "objective_prompt_rate": (obj.get("prompt") or {}).get("rate"),
        "objective_image_rate": (obj.get("image") or {}).get("rate"),
        "subjective": {
            side: {dim: v.get("score") for dim, v in (subj.get(side) or {}).items()}
            for side in ("prompt", "image")
        },
        "checks": list(checks.values()),
    }


def judge_usage(result: dict[str, Any]) -> dict[str, Any]:
    """The judge stage's usage from a Result's ``usage``."""
    u = result.get("usage") or {}
    return {
        "calls": u.get("llm_calls", 0),
        "cost_usd": u.get("cost_usd", 0.0),
        "latency_s": u.get("latency_s", 0.0),
        "cache_hits": u.get("cache_hits", 0),
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


def scored_line(line: dict[str, Any], result: dict[str, Any], note: str | None) -> dict[str, Any]:
    """Fill a line from the judge's Result; ``note`` (e.g. fewer images than asked) is kept
    as the reason when the judge gave none."""
    status = result.get("status", "partial")
    line.update(
        status=status,
        reason=result.get("reason") or note,
        selected_image=result.get("selected_image"),
        summary=summarize(result) if status != "blocked" else None,
        result=result,
    )
    line["usage"]["judge"] = judge_usage(result)
    return line
