"""The kit's judge client returns typed results (issue 34): a workflow reads attributes, and
the JSON it stores (``to_dict()``) is what the engine, or a service, gives for the same item."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from PIL import Image

from eval.kit.client import JudgeCallError, LocalJudge, expect
from judge.client import score_result
from judge.config import JudgeSettings
from judge.domain.result import Result
from judge.domain.rows import result_row
from judge.engine import Judge
from judge.modes.edit.result import EditResult

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "co_106"


def score_twice(submission: dict, base_dir: Path | None = None) -> tuple[object, object]:
    """The kit client's result and the engine's own, for one submission (local backend)."""
    judge = Judge(JudgeSettings(backend="local", safety=False))
    client = LocalJudge(judge=judge)
    kit = asyncio.run(client.score(submission, base_dir))
    return kit, judge.score(submission, base_dir=base_dir)


def timeless(result: object) -> dict:
    """The result's JSON without its timings (two runs of one item differ only there)."""
    data = result.to_dict()  # type: ignore[attr-defined]
    data["usage"].pop("latency_s")
    return data


@pytest.mark.slow
def test_a_score_submission_comes_back_as_a_result() -> None:
    submission = json.loads((EXAMPLE / "submission.json").read_text(encoding="utf-8"))
    kit, engine = score_twice(submission, EXAMPLE)
    assert isinstance(kit, Result)
    assert timeless(kit) == timeless(engine)
    row = result_row(kit)
    assert row["objective.image.total"] == len(submission["task"]["checklist"])
    assert row["llm_calls"] == kit.usage.llm_calls == 0  # the local backend calls no model


def test_an_edit_comes_back_as_an_edit_result(tmp_path: Path) -> None:
    Image.new("RGB", (64, 64), "white").save(tmp_path / "src.png")
    Image.new("RGB", (64, 64), "yellow").save(tmp_path / "out.png")
    edit = {"mode": "edit", "id": "e1", "instruction": "Make it yellow.",
            "source_image": "src.png", "images": ["out.png"]}  # fmt: skip
    kit, _ = score_twice(edit, tmp_path)
    assert isinstance(kit, EditResult)
    assert json.dumps(score_result(kit.to_dict()).to_dict()) == json.dumps(kit.to_dict())
    assert kit.metrics["color_shift"].applicable is False  # a colour change was asked for


def test_a_judgment_in_another_mode_is_a_failed_judgment_not_a_crash(tmp_path: Path) -> None:
    """A study or probe that sent a score submission reads ``.images`` and ``.objective``;
    an edit answer has neither. ``expect`` (which the studies and probes now call, found by
    the type checker) turns the mix-up into the JudgeCallError they record as a failed
    judgment, where an AttributeError used to end the whole run."""
    Image.new("RGB", (64, 64), "white").save(tmp_path / "src.png")
    Image.new("RGB", (64, 64), "yellow").save(tmp_path / "out.png")
    edit = {"mode": "edit", "id": "e1", "instruction": "Make it yellow.",
            "source_image": "src.png", "images": ["out.png"]}  # fmt: skip
    kit, _ = score_twice(edit, tmp_path)
    assert expect(kit, EditResult) is kit
    assert not hasattr(kit, "objective")
    with pytest.raises(JudgeCallError, match="another mode: EditResult, not Result"):
        expect(kit, Result)


@pytest.mark.slow
def test_the_json_a_service_answers_parses_back_to_the_same_bytes() -> None:
    submission = json.loads((EXAMPLE / "submission.json").read_text(encoding="utf-8"))
    kit, _ = score_twice(submission, EXAMPLE)
    answered = json.dumps(kit.to_dict())
    parsed = score_result(json.loads(answered))
    assert isinstance(parsed, Result) and json.dumps(parsed.to_dict()) == answered
