"""Image verdicts: the project's judge, in score mode, on a checklist written for the input.

An input's images go to :class:`judge.engine.Judge` as one submission whose task brief is the
input and whose checklist holds image checks only: the checks written for the input (by the
relevance review, or from a scene graph during localisation) plus the criterion's own (by
default one "no obvious defects" check; ``prompts/criteria.toml``). The judge checks each image
separately; an image **passes** when at least ``pass_share`` of its scored checks pass (default
1.0: every check), and is unlabelled (``None``) when no check could be scored or the safety gate
blocked the submission. Options: one VQA call per image (``per_modality``) and a single
prompt-side subjective card (``instructional_clarity``: score mode always runs at least one;
subjective scores play no part in a verdict, so the cheapest is chosen).

Example::

    labeller = Labeller(judge, pass_share=1.0)
    verdicts, reason = await labeller.label("a red cube", ["The cube is red."], [png_bytes])
"""

from __future__ import annotations

from typing import Any, Protocol

from eval.kit.client import LocalJudge, ResultT, expect
from eval.probing.criteria import DEFAULT_CRITERION, check_criterion, criteria
from judge.domain.result import CheckItem, Result
from judge.engine import Judge
from judge.io.data_urls import data_url
from judge.modes.edit.result import EditResult

JUDGE_OPTIONS: dict[str, Any] = {
    "checkpoint_batching": "per_modality",
    "skills": ["instructional_clarity"],
}


def image_verdict(items: list[CheckItem], pass_share: float) -> bool | None:
    """Pass when passed/scored >= ``pass_share``; None when nothing was scored.

    Example:
        >>> image_verdict([CheckItem(id="a", verdict=True), CheckItem(id="b", verdict=False)], 1)
        False
        >>> image_verdict([CheckItem(id="a", reason="no model")], 1) is None
        True
    """
    scored = [i.verdict for i in items if i.verdict is not None]
    if not scored:
        return None
    return sum(scored) / len(scored) >= pass_share - 1e-9


class Labels(Protocol):
    """What a probe run asks of its labeller (:class:`Labeller`, or the edit probe's)."""

    llm_calls: int

    async def label(
        self, prompt: str, checks: list[str], images: list[bytes]
    ) -> tuple[list[bool | None], str | None]: ...


class JudgeLabels:
    """What the labellers share: one judge call for all of an input's images, counted, and
    the answer when the safety gate blocked it."""

    client: LocalJudge
    llm_calls: int

    async def judged(self, submission: dict[str, Any], kind: type[ResultT]) -> ResultT:
        """The judge's result of ``kind`` for ``submission``; its model calls are counted."""
        answer = await self.client.score(submission)  # JudgeCallError: recorded by the caller
        result = expect(answer, kind)
        self.llm_calls += result.usage.llm_calls
        return result


def blocked(result: Result | EditResult, n: int) -> tuple[list[bool | None], str] | None:
    """No verdict for any of the ``n`` images, and why, when the safety gate blocked them."""
    if result.status != "blocked":
        return None
    return [None] * n, result.reason or "blocked by the safety gate"


class Labeller(JudgeLabels):
    """Labels images pass/fail with the judge."""

    def __init__(
        self, judge: Judge, *, pass_share: float = 1.0, criterion: str = DEFAULT_CRITERION
    ):
        check_criterion(criterion)
        self.judge = judge
        self.client = LocalJudge(judge=judge, options=JUDGE_OPTIONS)
        self.llm_calls = 0
        self.pass_share = pass_share
        self.extra = list(criteria()[criterion]["extra_checks"])

    def checklist(self, checks: list[str]) -> list[dict[str, str]]:
        """The judge task's checklist: the input's checks, then the criterion's."""
        texts = [c.strip()[:1900] for c in [*checks, *self.extra] if c.strip()][:32]
        return [
            {"id": f"c{k + 1}", "primitive": "hard_constraint", "image_check": text}
            for k, text in enumerate(texts)
        ]

    async def label(
        self, prompt: str, checks: list[str], images: list[bytes]
    ) -> tuple[list[bool | None], str | None]:
        """One verdict per image, and why they are missing when the judge could not decide."""
        submission = {
            "task": {
                "id": "probe",
                "category": "CO",
                "brief": prompt,
                "checklist": self.checklist(checks),
            },
            "prompt": prompt,
            "images": [data_url(png, "image/png") for png in images],
            "prompter": {"id": "probe", "kind": "mllm"},
        }
        result = await self.judged(submission, Result)
        if (none := blocked(result, len(images))) is not None:
            return none
        verdicts: list[bool | None] = [None] * len(images)
        per_image = {img.index: img.objective.items for img in result.images}
        if not per_image and len(images) == 1:  # one image: the result's own image side
            side = result.objective.get("image")
            per_image = {0: side.items if side else []}
        for index, items in per_image.items():
            if 0 <= index < len(images):
                verdicts[index] = image_verdict(items, self.pass_share)
        reason = None if any(v is not None for v in verdicts) else "no check could be scored"
        return verdicts, reason
