"""The judge's comparison of two editors' edits of one task (``[study] compare = true``): one
``edit_compare`` request per task × writer × pair of editors whose edits were both judged, and
its line of ``comparisons.jsonl``.

A line: ``task_id``, ``writer``, ``a``, ``b`` (editor ids, in study order), ``status``
(``scored``, ``partial``, ``blocked``, ``judge_failed``, or ``identical`` when the two selected
edits are the same picture: a tie on every criterion, the judge is not asked), ``reason``,
``criteria`` (criterion → ``a``, ``b``, ``tie`` or null when unscored),
``position_consistent`` (criterion → whether both orders agreed) and ``usage``.

Example:
    >>> from judge.modes.edit_compare.result import EditComparisonResult
    >>> result = EditComparisonResult.model_validate({"comparison_id": "t1", "status": "scored",
    ...     "criteria": {"visual_quality": {"winner": "a", "position_consistent": True}}})
    >>> line = comparison_line("t1", "as-written", "x", "y")
    >>> filled = from_result(line, result)
    >>> filled["criteria"], filled["status"]
    ({'visual_quality': 'a'}, 'scored')
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from eval.studies.results import judge_usage
from judge.modes.edit_compare.request import EDIT_CRITERIA

if TYPE_CHECKING:
    from judge.modes.edit_compare.result import EditComparisonResult

JUDGED = ("scored", "partial")


def comparison_line(task: str, writer: str, a: str, b: str) -> dict[str, Any]:
    """A ``comparisons.jsonl`` line before the outcome is known."""
    return {"task_id": task, "writer": writer, "a": a, "b": b, "status": None, "reason": None,
            "criteria": {}, "position_consistent": {}, "usage": {}}  # fmt: skip


def selected_edit(line: dict[str, Any]) -> str:
    """The path (relative to the run folder) of the edit the judge selected for ``line``."""
    images = line["images"]
    return images[min(line.get("selected_image") or 0, len(images) - 1)]


def identical(line: dict[str, Any]) -> dict[str, Any]:
    """Two edits that are the same picture: a tie on every criterion, nothing asked."""
    line.update(status="identical", reason="the two selected edits are the same picture",
                criteria=dict.fromkeys(EDIT_CRITERIA, "tie"))  # fmt: skip
    return line


def submission(
    line: dict[str, Any], instruction: str, source: Path, out: Path, edits: tuple[str, str]
) -> dict[str, Any]:
    """The ``edit_compare`` request of ``line`` (absolute image paths)."""
    return {
        "mode": "edit_compare",
        "id": f"{line['task_id']}.{line['writer']}.{line['a']}-vs-{line['b']}",
        "prompt_id": f"{line['task_id']}/{line['writer']}",
        "instruction": instruction,
        "source_image": str(source.resolve()),
        "a": {"image": str((out / edits[0]).resolve()), "model": line["a"]},
        "b": {"image": str((out / edits[1]).resolve()), "model": line["b"]},
    }


def from_result(line: dict[str, Any], result: EditComparisonResult) -> dict[str, Any]:
    """Fill ``line`` from the judge's comparison of the two edits."""
    status = result.status
    line["status"] = status if status in ("scored", "partial", "blocked") else "judge_failed"
    line["reason"] = result.reason
    line["criteria"] = {name: c.winner for name, c in result.criteria.items()}
    line["position_consistent"] = {
        name: c.position_consistent for name, c in result.criteria.items()
    }
    line["usage"] = judge_usage(result)
    return line
