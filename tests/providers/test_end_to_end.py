"""OE, CO and IM submissions scored by the real engine through litellm against the Anthropic,
Gemini and Ollama fakes: fully scored, images on the wire, each provider's structured-output
mechanism, retries on each provider's rate-limit errors, re-asks on truncated answers."""

from __future__ import annotations

import pytest

from judge.config import JudgeSettings
from judge.domain.result import Result
from judge.engine import Judge
from tests.conftest import submission
from tests.fakes.provider import FakeProvider, LoopbackFake
from tests.providers.conftest import CASES, Case, provider_judge

CASE_PARAMS = [pytest.param(c, id=c.id) for c in CASES]


def assert_fully_scored(result: Result, category: str) -> None:
    assert result.status == "scored", result.reason
    assert result.safety.passed and result.safety.prompt and result.safety.image
    for modality, dims in result.subjective.items():
        for name, dim in dims.items():
            if category == "IM" and modality == "image":
                assert dim.score is None and "imitation" in (dim.reason or "")
            else:
                assert dim.score is not None and 1 <= dim.score <= 5, (modality, name, dim)
    for side in result.objective.values():
        assert side.unscored == 0 and side.scored == len(side.items) > 0


def images_on_the_wire(fake: LoopbackFake | FakeProvider) -> list[tuple[str, ...]]:
    """Per call, the sha256 of every decoded image it carried (order of calls ignored)."""
    return sorted(tuple(sorted(i.sha256 for i in c.images)) for c in fake.wire_calls)


@pytest.mark.parametrize("category", ["OE", "CO", "IM"])
@pytest.mark.parametrize("case", CASE_PARAMS)
async def test_scores_every_category_with_images_and_native_structured_output(
    case: Case, category: str, fakes, make_judge, provider
) -> None:
    fake = fakes[case.api]
    sub = submission(category, n_checks=2)
    result = await provider_judge(case, fake).ascore(sub)
    assert_fully_scored(result, category)
    calls = fake.wire_calls
    assert fake.rejected == [] and len(calls) == result.usage.llm_calls > 0
    assert {c.path for c in calls} == {case.path}
    assert all(case.structured(c.body) for c in calls)
    assert (result.usage.cost_usd > 0) is case.priced
    # every image is a real JPEG/PNG of the submitted size, and the calls carry exactly the
    # images the same submission puts on the wire through the OpenAI-compatible fake
    images = [i for c in calls for i in c.images]
    assert images and all(i.mime in ("image/jpeg", "image/png") for i in images)
    assert {(i.width, i.height) for i in images} == {(32, 32)}
    reference = await make_judge().ascore(sub)
    assert reference.usage.llm_calls == result.usage.llm_calls
    assert images_on_the_wire(fake) == images_on_the_wire(provider)


@pytest.mark.parametrize("case", CASE_PARAMS)
async def test_retries_on_the_providers_rate_limit_errors(case: Case, fakes) -> None:
    fake = fakes[case.api]
    fake.fail_next(case.rate_limits)
    result = await provider_judge(case, fake).ascore(submission("CO", n_checks=2))
    assert_fully_scored(result, "CO")
    assert result.usage.retries == len(case.rate_limits)
    assert result.usage.failed_calls == 0
    assert fake.fault_counts == {k: case.rate_limits.count(k) for k in case.rate_limits}
    assert fake.calls == result.usage.llm_calls + len(case.rate_limits)


@pytest.mark.parametrize("case", CASE_PARAMS)
async def test_reasks_after_a_truncated_answer(case: Case, fakes) -> None:
    fake = fakes[case.api]
    fake.fail_next(["truncated"])
    result = await provider_judge(case, fake).ascore(submission("OE", n_checks=1))
    assert_fully_scored(result, "OE")
    assert result.usage.reasks == 1 and result.usage.retries == 0
    assert fake.calls == result.usage.llm_calls


async def test_a_panel_mixes_providers_with_each_ones_own_endpoint_and_key(
    fakes, monkeypatch
) -> None:
    """One Judge, three providers: with no ``api_base``/``api_key`` set, litellm takes each
    provider's own ``<PROVIDER>_API_BASE`` and key from the environment."""
    anthropic, gemini, ollama = fakes["anthropic"], fakes["gemini"], fakes["ollama"]
    monkeypatch.setenv("ANTHROPIC_API_BASE", anthropic.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy-anthropic-key")
    monkeypatch.setenv("GEMINI_API_BASE", gemini.base_url)
    monkeypatch.setenv("GEMINI_API_KEY", "dummy-gemini-key")
    monkeypatch.setenv("OLLAMA_API_BASE", ollama.base_url)
    panel = ["anthropic/fake-claude", "gemini/gemini-2.5-flash", "ollama_chat/llava"]
    settings = JudgeSettings(panel=panel, backoff_base_s=0.001, timeout_s=60.0)
    gemini.fail_next(["429"])
    result = await Judge(settings).ascore(submission("CO", n_checks=2))
    assert_fully_scored(result, "CO")
    assert result.usage.retries == 1
    item = result.objective["image"].items[0]
    assert item.votes is not None and set(item.votes) == set(panel)
    # safety runs on the first model only; every other skill on all three
    assert anthropic.calls == ollama.calls + 2 and gemini.calls == ollama.calls + 1
    assert anthropic.wire_calls[0].body["model"] == "fake-claude"
    assert {i.mime for c in ollama.wire_calls for i in c.images} == {"image/jpeg"}
