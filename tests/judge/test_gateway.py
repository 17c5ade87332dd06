"""The LLM gateway through real litellm and real HTTP: retries, re-asks, cache, usage."""

from __future__ import annotations

from pydantic import BaseModel

from judge.config import JudgeSettings
from judge.engine import Judge
from judge.llm.gateway import LLMGateway
from judge.llm.usage import UsageMeter
from skills.types import ModelCallError

MESSAGES = [{"role": "system", "content": "answer"}, {"role": "user", "content": "hello"}]


class Verdict(BaseModel):
    rationale: str
    verdict: bool


def gateway(provider, **kw) -> LLMGateway:
    base = dict(
        model="openai/fake",
        api_base=provider.base_url,
        api_key="k",
        backoff_base_s=0.001,
        backoff_max_s=0.01,
        timeout_s=2.0,
    )
    s = JudgeSettings(**(base | kw))
    return LLMGateway(s)


async def test_second_identical_call_is_served_from_cache(provider):
    gw, meter = gateway(provider), UsageMeter()
    first = await gw.structured("openai/fake", MESSAGES, Verdict, tag="t@1", meter=meter)
    second = await gw.structured("openai/fake", MESSAGES, Verdict, tag="t@1", meter=meter)
    assert first == second
    assert provider.calls == 1 and meter.llm_calls == 1 and meter.cache_hits == 1


async def test_cache_key_includes_card_version_and_model(provider):
    gw, meter = gateway(provider), UsageMeter()
    await gw.structured("openai/fake", MESSAGES, Verdict, tag="t@1", meter=meter)
    await gw.structured("openai/fake", MESSAGES, Verdict, tag="t@2", meter=meter)
    await gw.structured("openai/other", MESSAGES, Verdict, tag="t@1", meter=meter)
    assert provider.calls == 3 and meter.cache_hits == 0


async def test_retries_on_429_500_and_timeout(provider):
    provider.hang_s = 3.0
    provider.fail_next(["429", "500", "503", "timeout"])
    gw, meter = gateway(provider, timeout_s=0.5), UsageMeter()
    answer = await gw.structured("openai/fake", MESSAGES, Verdict, tag="t", meter=meter)
    assert answer.verdict is True
    assert meter.retries == 4 and meter.llm_calls == 1
    assert provider.fault_counts == {"429": 1, "500": 1, "503": 1, "timeout": 1}


async def test_gives_up_with_a_reason_after_max_retries(provider):
    provider.fail_next(["500"] * 3)
    gw, meter = gateway(provider, max_retries=2), UsageMeter()
    try:
        await gw.structured("openai/fake", MESSAGES, Verdict, tag="t", meter=meter)
    except ModelCallError as exc:
        assert "3 attempts" in str(exc) and "InternalServerError" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("expected ModelCallError")
    assert meter.failed_calls == 1


async def test_reask_on_truncated_json_then_succeeds(provider):
    provider.fail_next(["truncated", "garbage"])
    gw, meter = gateway(provider), UsageMeter()
    answer = await gw.structured("openai/fake", MESSAGES, Verdict, tag="t", meter=meter)
    assert isinstance(answer, Verdict)
    assert meter.reasks == 2 and meter.llm_calls == 3
    # the re-ask shows the model its bad reply and says what was wrong
    last = provider.requests[-1]["messages"]
    assert last[-2]["role"] == "assistant" and "could not be used" in last[-1]["content"]


async def test_schema_violation_is_reasked(provider):
    provider.on("hello", {"rationale": "x", "verdict": "maybe"}, times=1)
    gw, meter = gateway(provider), UsageMeter()
    answer = await gw.structured("openai/fake", MESSAGES, Verdict, tag="t", meter=meter)
    assert answer.verdict is True and meter.reasks == 1
    assert "verdict" in provider.requests[-1]["messages"][-1]["content"]


async def test_sends_json_schema_response_format_and_no_sdk_retries(provider):
    gw, meter = gateway(provider), UsageMeter()
    await gw.structured("openai/fake", MESSAGES, Verdict, tag="t", meter=meter)
    fmt = provider.requests[0]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "Verdict"
    assert set(fmt["json_schema"]["schema"]["properties"]) == {"rationale", "verdict"}
    provider.reset()
    provider.fail_next(["429"])
    meter = UsageMeter()
    await gw.structured(
        "openai/fake", [*MESSAGES, {"role": "user", "content": "x"}], Verdict, tag="t", meter=meter
    )
    assert provider.calls == 2 and meter.retries == 1  # ours, not the SDK's hidden ones


async def test_token_accounting(provider):
    gw, meter = gateway(provider), UsageMeter()
    await gw.structured("openai/fake", MESSAGES, Verdict, tag="t", meter=meter)
    assert meter.prompt_tokens > 0 and meter.completion_tokens > 0 and meter.cost_usd == 0.0


async def test_non_transient_error_fails_fast(provider):
    gw, meter = gateway(provider), UsageMeter()
    try:
        await gw.structured("nonexistent-provider/model-x", MESSAGES, Verdict, tag="t", meter=meter)
    except ModelCallError as exc:
        assert "Error" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("expected ModelCallError")
    assert meter.retries == 0 and provider.calls == 0


async def test_concurrency_cap_limits_calls_in_flight(make_judge, provider):
    from tests.conftest import submission

    provider.gate.group(3)  # 18 calls pass only in groups of 3 waiting together
    result = await make_judge(llm_concurrency=3).ascore(submission("CO", n_checks=4))
    assert result.status == "scored" and provider.calls == 18
    assert provider.max_in_flight == 3  # 3 were held at once, and never a 4th beside them


async def test_everything_overlaps_without_a_cap(provider):
    from tests.conftest import submission

    settings = JudgeSettings(model="openai/fake-judge", api_base=provider.base_url, api_key="k")
    provider.gate.group(18)  # the calls go on only once all 18 wait at the fake together
    result = await Judge(settings).ascore(submission("CO", n_checks=4))
    assert result.status == "scored" and provider.calls == 18
    assert provider.max_in_flight == 18  # safety, subjective and checks all at once


async def test_cost_is_accounted_for_priced_models(provider):
    gw, meter = gateway(provider), UsageMeter()
    await gw.structured("openai/gpt-4o", MESSAGES, Verdict, tag="t", meter=meter)
    assert meter.cost_usd > 0
