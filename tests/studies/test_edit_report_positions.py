"""The edit-study report counts the comparisons whose two orders disagreed (issue 48, item 20):
a judge with a position bias shows as ties, and the report says how many."""

from __future__ import annotations

import json
from pathlib import Path

from eval.studies.edits.report.build import write_edit_report

CRITERIA = ("instruction_following", "image_consistency", "visual_quality")


def line(task: str, editor: str, score: float) -> dict:
    return {"task_id": task, "writer": "w", "editor": editor, "status": "scored",
            "category": "c", "family": "f", "success": score >= 4, "metrics": {},
            "criteria": dict.fromkeys(CRITERIA, score)}  # fmt: skip


def comparison(task: str, winners: tuple[str, ...], consistent: tuple[bool, ...]) -> dict:
    return {"task_id": task, "writer": "w", "a": "x", "b": "y", "status": "scored",
            "criteria": dict(zip(CRITERIA, winners, strict=True)),
            "position_consistent": dict(zip(CRITERIA, consistent, strict=True))}  # fmt: skip


def test_the_report_counts_position_inconsistent_comparisons(tmp_path: Path) -> None:
    study = {"kind": "edit", "name": "s", "tasks": [{"id": "t1"}, {"id": "t2"}],
             "writers": [{"id": "w"}], "editors": [{"id": "x"}, {"id": "y"}], "compare": True}
    (tmp_path / "study.json").write_text(json.dumps(study))
    lines = [line(t, e, s) for t in ("t1", "t2") for e, s in (("x", 5.0), ("y", 2.0))]
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    comparisons = [comparison("t1", ("a", "tie", "a"), (True, False, True)),
                   comparison("t2", ("tie", "tie", "b"), (False, False, True))]  # fmt: skip
    (tmp_path / "comparisons.jsonl").write_text("".join(json.dumps(c) + "\n" for c in comparisons))
    report = write_edit_report(tmp_path, n_boot=0, seed=0, plots=False)
    assert report["pairwise"]["position_inconsistent"] == {
        "criteria": 3, "of_criteria": 6, "comparisons": 2, "of_comparisons": 2}  # fmt: skip
    md = (tmp_path / "report.md").read_text()
    assert ("Position consistency: 3 of 6 criterion verdicts (in 2 of 2 comparisons) changed "
            "when the two edits were swapped") in md  # fmt: skip
