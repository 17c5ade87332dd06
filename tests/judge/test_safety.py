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


async def test_undecided_safety_is_unknown_and_partial(make_judge, provider):
    """A filter that could not run never reads as passed: ``passed`` is null (unknown)."""
    provider.on(is_prompt_safety, "not json at all")
    result = await make_judge(max_reasks=0).ascore(submission("CO", n_checks=1))
    assert result.status == "partial"
    assert result.safety.passed is None and result.safety.prompt.passed is None
    assert "model call failed" in result.safety.prompt.reason
    assert result.objective["image"].scored == 1  # scoring itself went ahead
    dumped = result.model_dump(mode="json", exclude_none=True)
    assert dumped["safety"]["passed"] is None  # kept in the JSON, not dropped as a null


async def test_safety_on_error_block_fails_closed(make_judge, provider, monkeypatch):
    """JUDGE_SAFETY_ON_ERROR=block: an image filter that could not run blocks the result."""
    monkeypatch.setenv("JUDGE_SAFETY_ON_ERROR", "block")
    provider.on(is_image_safety, "not json at all")
    judge = make_judge(max_reasks=0)
    assert judge.settings.safety_on_error == "block"
    result = await judge.ascore(submission("CO", n_checks=1))
    assert result.status == "blocked"
    assert result.safety.passed is False and result.safety.blocked_by == "image[0]"
    assert "could not run" in result.reason and "SAFETY_ON_ERROR=block" in result.reason
    assert result.provenance.options["safety_on_error"] == "block"


async def test_safety_on_error_block_sequential_skips_scoring(make_judge, provider):
    provider.on(is_prompt_safety, "not json at all")
    judge = make_judge(max_reasks=0, speculative_safety=False, safety_on_error="block")
    result = await judge.ascore(submission("CO", n_checks=2))
    assert result.status == "blocked" and result.safety.blocked_by == "prompt"
    assert provider.calls == 2  # only the two filters ran


async def test_flagged_beats_undecided_in_block_mode(make_judge, provider):
    provider.on(is_prompt_safety, "not json at all")
    provider.on(is_image_safety, FLAG)
    result = await make_judge(max_reasks=0, safety_on_error="block").ascore(submission("CO"))
    assert result.status == "blocked" and result.safety.blocked_by == "image[0]"
    assert "graphic_violence" in result.reason


async def test_safety_can_be_disabled(make_judge, provider):
    result = await make_judge(safety=False).ascore(submission("CO", n_checks=1))
    assert result.status == "scored" and provider.calls == 8 + 2
