"""The resumable runner with a stub scorer: one line per item, labels never in a prediction."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from eval.datasets.base import EvalItem, Target
from eval.metaeval.runner import prediction_of, read_predictions, run_items
from judge.domain.result import Result
from judge.errors import InputError


class StubDataset:
    name = "stub"
    targets = [Target("appeal", "image", "appeal"), Target("clarity", "prompt", "clarity")]  # noqa: RUF012
    skills: list[str] = []  # noqa: RUF012
    group_key = None


class StubScorer:
    """Answers from the submission only; fails for the ids in ``fail``."""

    def __init__(self, fail: set[str] = frozenset()):  # type: ignore[assignment]
        self.fail = set(fail)
        self.seen: list[str] = []

    async def score(
        self, submission: dict, base_dir: Path | None = None, options: dict | None = None
    ) -> Result:
        n = len(submission["prompt"])  # items(): item k has a prompt of k characters
        item_id = f"img/{n}.png"
        self.seen.append(item_id)
        if item_id in self.fail:
            raise InputError("images[0]", "not an image")
        return Result.model_validate({
            "submission_id": item_id,
            "status": "scored",
            "subjective": {
                "image": {"appeal": {"score": 1 + n % 5, "exemplars": [{"id": "m1"}]}},
                "prompt": {"clarity": {"score": None, "reason": "timeout"}},
            },
            "objective": {"prompt": {"items": [{"id": "c1", "verdict": True}]}},
            "usage": {"llm_calls": 2, "cache_hits": 0, "latency_s": 1.0},
        })


def items(n: int = 5) -> list[EvalItem]:
    return [
        EvalItem(
            id=f"img/{k}.png",
            submission={"prompt": "x" * k},
            base_dir=Path("."),
            labels={"appeal": 4.25 + k},
            key={"image": f"img/{k}.png"},
        )
        for k in range(n)
    ]


def test_prediction_line_has_the_key_and_scores_but_no_label() -> None:
    item = items(2)[1]
    result = asyncio.run(StubScorer().score(item.submission))
    row = prediction_of(item, StubDataset(), result)
    assert row == {
        "image": "img/1.png",
        "id": "img/1.png",
        "scores": {"appeal": 2.0, "clarity": None},
        "objective": {"prompt": {"c1": True}, "image": {}},
        "status": "scored",
        "exemplars": ["m1"],
        "usage": {"llm_calls": 2, "cache_hits": 0},
        "unscored": {"clarity": "timeout"},
    }
    assert "5.25" not in json.dumps(row)


def test_read_predictions_skips_torn_and_foreign_lines(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    assert read_predictions(path) == {}
    path.write_text(
        '{"id": "a", "v": 1}\n[1, 2]\n{"no_id": 1}\n{"id": "a", "v": 2}\n{"id": "b", "v'
    )
    assert read_predictions(path) == {"a": {"id": "a", "v": 2}}


def test_run_items_resumes_and_retries_errors(tmp_path: Path) -> None:
    out = tmp_path / "sub" / "predictions.jsonl"
    its = items(5)
    first = StubScorer(fail={"img/3.png"})
    preds = asyncio.run(run_items(its, first, StubDataset(), out, progress=False))
    assert [p["id"] for p in preds] == [i.id for i in its]  # item order, whatever finished first
    assert "error" in preds[3] and preds[3]["error"].startswith("InputError")
    assert preds[3]["image"] == "img/3.png"
    assert sorted(first.seen) == sorted(i.id for i in its)
    lines = out.read_text().splitlines()
    assert [json.loads(line)["id"] for line in lines] == [i.id for i in its]

    second = StubScorer()
    again = asyncio.run(run_items(its, second, StubDataset(), out, progress=False))
    assert second.seen == ["img/3.png"]
    assert "error" not in again[3] and again[:3] == preds[:3] and again[4] == preds[4]
    assert len(out.read_text().splitlines()) == 5  # rewritten: one line per item

    # a torn last line: that item is scored again, the file ends whole
    text = out.read_text()
    out.write_text(text[: text.rindex("{") + 10])
    third = StubScorer()
    final = asyncio.run(run_items(its, third, StubDataset(), out, progress=False))
    assert third.seen == ["img/4.png"]
    assert final == again
    assert [json.loads(line) for line in out.read_text().splitlines()] == again
    assert [p.name for p in out.parent.iterdir() if p.name.endswith(".tmp")] == []
