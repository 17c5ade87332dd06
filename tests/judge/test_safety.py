"""The safety gate: blocking, speculative vs sequential, undecided filters."""

from __future__ import annotations

from tests.conftest import submission

FLAG = {"rationale": "graphic gore", "flagged": True, "categories": ["graphic_violence"]}


def is_prompt_safety(body) -> bool:
    return (
        "content-safety screen" in body["messages"][0]["content"]
        and "task brief and the prompt" in body["messages"][0]["content"]
    )


def is_image_safety(body) -> bool:
    return "shows content the service must not process" in body["messages"][0]["content"]


async def test_blocked_prompt_has_no_scores(make_judge, provider):
    provider.on(is_prompt_safety, FLAG)
    result = await make_judge().ascore(submission("CO", n_checks=2))
    assert result.status == "blocked"
    assert result.safety.passed is False and result.safety.blocked_by == "prompt"
    assert result.safety.prompt.categories == ["graphic_violence"]
    assert "graphic_violence" in result.reason
    assert result.subjective == {"prompt": {}, "image": {}}
    assert result.objective["prompt"].items == [] and result.objective["image"].items == []


async def test_sequential_safety_skips_scoring_when_blocked(make_judge, provider):
    provider.on(is_image_safety, FLAG)
    result = await make_judge(speculative_safety=False).ascore(submission("CO", n_checks=2))
    assert result.status == "blocked" and result.safety.blocked_by == "image[0]"
    assert provider.calls == 2  # only the two filters ran


async def test_speculative_safety_runs_alongside_scoring(make_judge, provider):
    provider.on(is_prompt_safety, FLAG)
    await make_judge().ascore(submission("CO", n_checks=2))
    assert provider.calls == 14  # everything ran, results discarded


async def test_sequential_safety_passes_then_scores(make_judge, provider):
    result = await make_judge(speculative_safety=False).ascore(submission("CO", n_checks=2))
    assert result.status == "scored" and result.objective["image"].scored == 2


async def test_undecided_safety_is_partial_not_blocked(make_judge, provider):
    provider.on(is_prompt_safety, "not json at all")
    result = await make_judge(max_reasks=0).ascore(submission("CO", n_checks=1))
    assert result.status == "partial"
    assert result.safety.passed is True and result.safety.prompt.passed is None
    assert "model call failed" in result.safety.prompt.reason


async def test_safety_can_be_disabled(make_judge, provider):
    result = await make_judge(safety=False).ascore(submission("CO", n_checks=1))
    assert result.status == "scored" and provider.calls == 8 + 2
