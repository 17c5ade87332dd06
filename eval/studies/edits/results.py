"""One line of an edit study's ``results.jsonl``: a task × writer × editor, its edits and the
judge's verdict on them.

Statuses: ``scored``/``partial`` (the judge's; ``partial`` when a criterion came back
unscored), ``blocked`` (the editor refused or its filter withheld the output, or the judge's
safety screen blocked it), ``writer_failed``, ``edit_failed``, ``judge_failed``; ``reason``
says why for all but ``scored``.

Example:
    >>> line = base_line("t1", "as-written", "demo", category="animals", family="colour_change")
    >>> line["status"], sorted(line["usage"])
    (None, ['edit', 'judge', 'writer'])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from eval.studies.results import judge_usage

if TYPE_CHECKING:
    from judge.modes.edit.result import EditResult

CRITERIA = ("instruction_following", "image_consistency", "visual_quality")
"""The edit mode's three criteria, in the order reports show them."""


def base_line(task: str, writer: str, editor: str, **fields: Any) -> dict[str, Any]:
    """A results line before any outcome is known."""
    return {
        "task_id": task,
        "writer": writer,
        "editor": editor,
        **fields,
        "status": None,
        "reason": None,
        "images": [],
        "usage": {"writer": {}, "edit": {}, "judge": {}},
    }


def judged_line(line: dict[str, Any], result: EditResult) -> dict[str, Any]:
    """Fill ``line`` from an edit Result: status, criteria, success, metrics, choice."""
    status = result.status
    line["status"] = status if status in ("scored", "partial", "blocked") else "judge_failed"
    line["reason"] = result.reason
    line["criteria"] = {
        name: crit.score if (crit := result.criteria.get(name)) else None for name in CRITERIA
    }
    line["success"] = result.success.passed if result.success else None
    line["threshold"] = result.success.threshold if result.success else None
    line["metrics"] = {
        name: {"value": m.value, "applicable": bool(m.applicable)}
        for name, m in result.metrics.items()
    }
    line["selected_image"] = result.selected_image
    line["usage"]["judge"] = judge_usage(result)
    return line
