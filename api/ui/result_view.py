"""Rows of the results viewer, built from a batch result line or a study ``results.jsonl`` line.

A row: ``{"key", "status", "reason", "task_id", "category", "prompter", "backend", "prompt",
"images", "scores": [{"dimension": "image/aesthetics", "score", "rationale", "reason"}],
"checks": [{"side", "id", "verdict", "rationale"}], "rates": {"prompt", "image"}}``.
Values are kept as data; the templates escape them.

Example:
    >>> row = batch_row({"index": 0, "result": {"status": "scored", "subjective":
    ...     {"image": {"aesthetics": {"score": 4, "rationale": "clean"}}}}})
    >>> row["status"], row["scores"][0]["dimension"], row["scores"][0]["score"]
    ('scored', 'image/aesthetics', 4)
    >>> [r["key"] for r in filter_rows([row], {"dimension": "image/aesthetics"})]
    ['item 0']
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _result_parts(result: dict[str, Any] | None) -> dict[str, Any]:
    scores, checks, rates = [], [], {}
    result = result if isinstance(result, dict) else {}
    for side, dims in (result.get("subjective") or {}).items():
        for dim, s in (dims or {}).items():
            s = s if isinstance(s, dict) else {}
            scores.append(
                {
                    "dimension": f"{side}/{dim}",
                    "score": s.get("score"),
                    "rationale": _text(s.get("rationale")),
                    "reason": _text(s.get("reason")),
                }
            )
    for side, obj in (result.get("objective") or {}).items():
        obj = obj if isinstance(obj, dict) else {}
        rates[side] = obj.get("rate")
        for item in obj.get("items") or []:
            if isinstance(item, dict):
                checks.append(
                    {
                        "side": side,
                        "id": _text(item.get("id")),
                        "verdict": item.get("verdict"),
                        "rationale": _text(item.get("rationale") or item.get("reason")),
                    }
                )
    return {"scores": scores, "checks": checks, "rates": rates}


def batch_row(line: dict[str, Any]) -> dict[str, Any]:
    """A row of one ``{"index", "result"}`` / ``{"index", "error"}`` batch line."""
    result = line.get("result")
    error = line.get("error") if isinstance(line.get("error"), dict) else None
    return {
        "key": f"item {line.get('index')}",
        "status": (result or {}).get("status", "error") if result else "error",
        "reason": _text(error.get("message")) if error else _text((result or {}).get("reason")),
        "task_id": _text((result or {}).get("task_id")),
        "category": _text((result or {}).get("category")),
        "prompter": None,
        "backend": None,
        "prompt": None,
        "images": [],
        **_result_parts(result),
    }


def study_row(line: dict[str, Any], number: int) -> dict[str, Any]:
    """A row of one study ``results.jsonl`` line (its images as URLs of the run's files)."""
    images = [i for i in line.get("images") or [] if isinstance(i, str)]
    return {
        "key": f"line {number}",
        "status": str(line.get("status", "unknown")),
        "reason": _text(line.get("reason")),
        "task_id": _text(line.get("task_id")),
        "category": _text(line.get("category")),
        "prompter": _text(line.get("prompter")),
        "backend": _text(line.get("backend")),
        "prompt": _text(line.get("prompt")),
        "images": [quote(i) for i in images],
        "selected_image": line.get("selected_image"),
        **_result_parts(line.get("result")),
    }


def dimensions_of(rows: list[dict[str, Any]]) -> list[str]:
    """Every scored dimension of the rows, sorted."""
    return sorted({s["dimension"] for r in rows for s in r["scores"]})


def filter_rows(rows: list[dict[str, Any]], chosen: dict[str, str]) -> list[dict[str, Any]]:
    """Rows matching the chosen status, prompter, backend and dimension (blank = any)."""
    out = []
    for row in rows:
        fields = ("status", "prompter", "backend")
        if any(chosen.get(k) and row.get(k) != chosen[k] for k in fields):
            continue
        dim = chosen.get("dimension")
        if dim:
            match = [s for s in row["scores"] if s["dimension"] == dim]
            if not match:
                continue
            row = {**row, "scores": match + [s for s in row["scores"] if s not in match]}
        out.append(row)
    return out
