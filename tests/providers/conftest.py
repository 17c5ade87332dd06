"""Fixtures for the non-OpenAI provider fakes: one server per wire format for the session,
reset before each test, and the provider cases the end-to-end tests run through."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from judge.config import JudgeSettings
from judge.engine import Judge
from tests.fakes.provider import AnthropicFake, GeminiFake, LoopbackFake, OllamaFake
from tests.fakes.provider.wire import Body


def _anthropic_tool(body: Body) -> bool:
    tool = body["tools"][0]
    return (
        body["tool_choice"] == {"type": "tool", "name": "json_tool_call"}
        and tool["name"] == "json_tool_call"
        and "properties" in tool["input_schema"]
        and "output_format" not in body
    )


def _anthropic_native(body: Body) -> bool:
    fmt = body.get("output_format") or {}
    return (
        fmt.get("type") == "json_schema" and "properties" in fmt["schema"] and "tools" not in body
    )


def _gemini_schema(body: Body) -> bool:
    config = body["generationConfig"]
    return config["response_mime_type"] == "application/json" and (
        "properties" in config["response_json_schema"]
    )


def _gemini_prompt(body: Body) -> bool:
    config = body["generationConfig"]
    texts = [p.get("text", "") for c in body["contents"] for p in c["parts"]]
    return (
        config["response_mime_type"] == "application/json"
        and "response_json_schema" not in config
        and "response_schema" not in config
        and any(t.startswith("Use this JSON schema") for t in texts)
    )


def _ollama_format(body: Body) -> bool:
    return isinstance(body.get("format"), dict) and "properties" in body["format"]


@dataclass(frozen=True)
class Case:
    """One way of reaching a provider: fake, litellm model, endpoint, structured output."""

    id: str
    api: str
    model: str
    path: str
    structured: Callable[[Body], bool]
    rate_limits: tuple[str, ...]
    priced: bool = False


CASES = [
    Case(
        "anthropic-tool", "anthropic", "anthropic/fake-claude", "/v1/messages",
        _anthropic_tool, ("429", "529"),
    ),
    Case(
        "anthropic-native", "anthropic", "anthropic/claude-sonnet-4-5", "/v1/messages",
        _anthropic_native, ("529", "429"), priced=True,
    ),
    Case(
        "gemini-schema", "gemini", "gemini/gemini-2.5-flash",
        "/v1beta/models/gemini-2.5-flash:generateContent", _gemini_schema, ("429", "503"),
        priced=True,
    ),
    Case(
        "gemini-prompt", "gemini", "gemini/fake-gemini",
        "/v1beta/models/fake-gemini:generateContent", _gemini_prompt, ("429",),
    ),
    Case("ollama-generate", "ollama", "ollama/llava", "/api/generate", _ollama_format, ("429",)),
    Case(
        "ollama-chat", "ollama", "ollama_chat/llava", "/api/chat", _ollama_format, ("429", "503")
    ),
]  # fmt: skip


@pytest.fixture(scope="session")
def fakes_session() -> Iterator[dict[str, LoopbackFake]]:
    fakes: dict[str, LoopbackFake] = {
        "anthropic": AnthropicFake(hang_s=3.0),
        "gemini": GeminiFake(hang_s=3.0),
        "ollama": OllamaFake(hang_s=3.0),
    }
    for fake in fakes.values():
        fake.start()
    try:
        yield fakes
    finally:
        for fake in fakes.values():
            fake.stop()


@pytest.fixture
def fakes(fakes_session: dict[str, LoopbackFake]) -> Iterator[dict[str, LoopbackFake]]:
    """The session's fakes by API name, reset before and after each test."""
    for fake in fakes_session.values():
        fake.reset()
    yield fakes_session
    for fake in fakes_session.values():
        fake.reset()


def provider_judge(case: Case, fake: LoopbackFake, **overrides: object) -> Judge:
    """A Judge whose model is ``case.model`` reached at the fake, with a dummy key."""
    settings = JudgeSettings(
        model=case.model,
        api_base=fake.base_url,
        api_key="dummy-key",
        backoff_base_s=0.001,
        backoff_max_s=0.01,
        timeout_s=60.0,  # a hang guard, not a speed check
    )
    return Judge(settings, **overrides)
