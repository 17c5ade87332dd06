"""``openai/...`` calls go through litellm's own HTTP handler (not the OpenAI SDK client), and
what the provider receives is the same either way."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import openai.resources.chat.completions as sdk_chat
import pytest
from pydantic import BaseModel

from judge.config import JudgeSettings
from judge.llm import litellm_settings
from judge.llm.gateway import LLMGateway
from judge.llm.litellm_settings import OPENAI_HTTP_HANDLER
from judge.llm.usage import UsageMeter
from tests.conftest import png_data_url

ROOT = Path(__file__).resolve().parents[2]


class Verdict(BaseModel):
    rationale: str
    verdict: bool


def _messages() -> list[dict]:
    return [
        {"role": "system", "content": "judge the image"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Is it red?"},
                {"type": "image_url", "image_url": {"url": png_data_url("red")}},
            ],
        },
    ]


@pytest.fixture
def sdk_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts calls into the OpenAI SDK's chat-completions client (the real method still runs)."""
    seen: list[int] = []
    original = sdk_chat.AsyncCompletions.create

    async def counting(self, *args, **kwargs):
        seen.append(1)
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(sdk_chat.AsyncCompletions, "create", counting)
    return seen


async def _ask(provider, model: str = "openai/fake") -> tuple[Verdict, UsageMeter]:
    # litellm's own path: this file compares its two HTTP clients (the direct route, which
    # sends neither, is compared with litellm in test_direct_route.py)
    settings = JudgeSettings(
        model=model, api_base=provider.base_url, api_key="k", cache=False, llm_transport="litellm"
    )
    meter = UsageMeter()
    answer = await LLMGateway(settings).structured(
        model, _messages(), Verdict, tag="t", meter=meter
    )
    return answer, meter


def test_the_judge_turns_the_http_handler_on_by_default() -> None:
    litellm_settings.load()  # the switches are applied when litellm is first loaded
    assert os.environ.get(OPENAI_HTTP_HANDLER) == litellm_settings.TUNED[OPENAI_HTTP_HANDLER]
    assert litellm_settings.DEFAULTS[OPENAI_HTTP_HANDLER] is None  # litellm's own: the SDK


async def test_calls_skip_the_sdk_and_the_provider_gets_the_same_request(provider, sdk_calls):
    lean, lean_meter = await _ask(provider)
    assert sdk_calls == [] and provider.calls == 1
    with litellm_settings.applied({OPENAI_HTTP_HANDLER: "false"}):
        sdk, sdk_meter = await _ask(provider)
    assert sdk_calls == [1] and provider.calls == 2
    first, second = provider.requests
    assert first == second  # same JSON body: messages, image, response_format, params
    assert first["response_format"]["json_schema"]["name"] == "Verdict"
    assert len(provider.wire_calls[0].images) == 1
    assert lean == sdk
    assert (lean_meter.prompt_tokens, lean_meter.completion_tokens) == (
        sdk_meter.prompt_tokens,
        sdk_meter.completion_tokens,
    )


async def test_priced_models_cost_the_same_on_both_clients(provider):
    _, lean = await _ask(provider, "openai/gpt-4o")
    with litellm_settings.applied({OPENAI_HTTP_HANDLER: "false"}):
        _, sdk = await _ask(provider, "openai/gpt-4o")
    assert lean.cost_usd > 0 and lean.cost_usd == pytest.approx(sdk.cost_usd)


def test_a_value_in_the_environment_wins() -> None:
    env = {**os.environ, OPENAI_HTTP_HANDLER: "false", "PYTHONPATH": str(ROOT)}
    code = f"import os, judge.llm.gateway; print(os.environ[{OPENAI_HTTP_HANDLER!r}])"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "false"
