"""Each fake accepts only its provider's wire format (a misrouted or OpenAI-shaped call fails
with a reason), proves the images it receives, answers errors in the provider's shape, and
shares the scripted responder; the fakes also run as their own process."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import aiohttp
import litellm
import openai
import pytest
from PIL import Image
from pydantic import BaseModel, Field

from tests.conftest import png_data_url
from tests.fakes.provider import FAKES, LoopbackFake, spawn_fake_provider, stop_process
from tests.fakes.provider.__main__ import parse_args
from tests.providers.conftest import CASES

PNG = png_data_url().split(",", 1)[1]


def jpeg_b64() -> str:
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), "blue").save(buf, "JPEG")
    return base64.b64encode(buf.getvalue()).decode()


class Score(BaseModel):
    score: int = Field(ge=1, le=5)
    rationale: str = Field(max_length=30)


FORMAT = {
    "type": "json_schema",
    "json_schema": {"name": "Score", "schema": Score.model_json_schema()},
}
MESSAGES = [
    {"role": "system", "content": "You are a judge."},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "hello, rate this"},
            {"type": "image_url", "image_url": {"url": png_data_url()}},
        ],
    },
]


async def ask(model: str, fake: LoopbackFake, **kwargs: Any) -> Any:
    return await litellm.acompletion(
        model=model,
        api_base=fake.base_url,
        api_key="dummy-key",
        messages=MESSAGES,
        response_format=FORMAT,
        max_retries=0,
        timeout=60,  # a hang guard, not a speed check
        **kwargs,
    )


async def post(url: str, body: Any, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, json=body, headers=headers or {}) as resp,
    ):
        return resp.status, await resp.json(content_type=None)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
async def test_scripted_replies_are_shared_by_every_dialect(case, fakes) -> None:
    fake = fakes[case.api]
    fake.on("rate this", {"score": 2, "rationale": "scripted"}, times=1)
    first = await ask(case.model, fake)
    assert json.loads(first.choices[0].message.content) == {"score": 2, "rationale": "scripted"}
    second = Score.model_validate_json((await ask(case.model, fake)).choices[0].message.content)
    assert second.rationale == "fake rationale"  # the schema-valid default once the rule is used
    canonical = fake.wire_calls[0].canonical
    assert canonical["messages"][0]["role"] in ("system", "user")
    assert [i.mime for i in fake.wire_calls[0].images] == ["image/png"]


@pytest.mark.parametrize(
    ("model", "api"),
    [
        ("openai/fake", "anthropic"),
        ("anthropic/fake-claude", "gemini"),
        ("gemini/gemini-2.5-flash", "ollama"),
        ("ollama_chat/llava", "anthropic"),
        ("openai/fake", "ollama"),
    ],
)
async def test_a_misrouted_call_fails(model: str, api: str, fakes) -> None:
    fake = fakes[api]
    with pytest.raises(openai.APIError) as caught:  # litellm's errors derive from it
        await ask(model, fake)
    assert getattr(caught.value, "status_code", None) in (400, 404)
    assert fake.calls == 0


async def test_openai_shaped_bodies_are_refused_with_the_reason(fakes) -> None:
    openai_body = {"model": "m", "messages": MESSAGES, "max_tokens": 10, "stream": False}
    anthropic = fakes["anthropic"]
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    status, body = await post(f"{anthropic.base_url}/v1/messages", openai_body, headers)
    assert status == 400 and body["type"] == "error"
    assert "messages.0.role" in body["error"]["message"] and "system" in body["error"]["message"]
    user_only = {**openai_body, "messages": MESSAGES[1:]}
    status, body = await post(f"{anthropic.base_url}/v1/messages", user_only, headers)
    assert status == 400 and "'image_url'" in body["error"]["message"]
    gemini = fakes["gemini"]
    url = f"{gemini.base_url}/models/g:generateContent"
    status, body = await post(url, openai_body, {"x-goog-api-key": "k"})
    assert status == 400 and body["error"]["status"] == "INVALID_ARGUMENT"
    assert 'Unknown name "max_tokens"' in body["error"]["message"]
    ollama = fakes["ollama"]
    status, body = await post(f"{ollama.base_url}/api/chat", openai_body)
    assert status == 400 and "cannot unmarshal list" in body["error"]
    status, body = await post(f"{ollama.base_url}/api/chat", {"model": "m", "messages": []})
    assert status == 400 and "stream must be false" in body["error"]
    assert all(f.calls == 0 for f in fakes.values())
    assert len(anthropic.rejected) == 2 and len(ollama.rejected) == 2


async def test_headers_each_provider_requires(fakes) -> None:
    anthropic = fakes["anthropic"]
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}
    status, err = await post(f"{anthropic.base_url}/v1/messages", body, {"x-api-key": "k"})
    assert status == 400 and "anthropic-version" in err["error"]["message"]
    status, err = await post(
        f"{anthropic.base_url}/v1/messages", body, {"anthropic-version": "2023-06-01"}
    )
    assert status == 401 and err["error"]["type"] == "authentication_error"
    native = {**body, "output_format": {"type": "json_schema", "schema": {"type": "object"}}}
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    status, err = await post(f"{anthropic.base_url}/v1/messages", native, headers)
    assert status == 400 and "structured-outputs" in err["error"]["message"]
    forced = {**body, "tools": [{"name": "a", "input_schema": {"type": "object"}}]}
    forced["tool_choice"] = {"type": "tool", "name": "b"}
    status, err = await post(f"{anthropic.base_url}/v1/messages", forced, headers)
    assert status == 400 and "no tool named 'b'" in err["error"]["message"]
    gemini = fakes["gemini"]
    contents = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    status, err = await post(f"{gemini.base_url}/models/g:generateContent", contents)
    assert status == 403 and err["error"]["status"] == "PERMISSION_DENIED"
    status, _ = await post(f"{gemini.base_url}/models/g:generateContent?key=k", contents)
    assert status == 200


@pytest.mark.parametrize(
    ("data", "declared", "reason"),
    [
        (jpeg_b64(), "image/png", "declared as image/png but is image/jpeg"),
        (base64.b64encode(b"not an image at all").decode(), "image/png", "not a PNG, JPEG"),
        (PNG[: len(PNG) // 2 // 4 * 4], "image/png", "could not be decoded"),
        ("%%%not-base64%%%", "image/png", "not valid base64"),
    ],
)
async def test_images_are_decoded_and_proven(data: str, declared: str, reason: str, fakes) -> None:
    anthropic, gemini, ollama = fakes["anthropic"], fakes["gemini"], fakes["ollama"]
    block = {"type": "image", "source": {"type": "base64", "media_type": declared, "data": data}}
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": [block]}]}
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    status, err = await post(f"{anthropic.base_url}/v1/messages", body, headers)
    assert status == 400 and reason in err["error"]["message"]
    part = {"inline_data": {"mime_type": declared, "data": data}}
    gbody = {"contents": [{"role": "user", "parts": [{"text": "x"}, part]}]}
    status, err = await post(
        f"{gemini.base_url}/models/g:generateContent", gbody, {"x-goog-api-key": "k"}
    )
    assert status == 400 and reason in err["error"]["message"]
    if "declared" not in reason:  # Ollama images carry no declared type
        obody = {"model": "m", "prompt": "x", "images": [data], "stream": False}
        status, err = await post(f"{ollama.base_url}/api/generate", obody)
        assert status == 400 and reason in err["error"]
    assert sum(f.calls for f in fakes.values()) == 0


async def test_error_bodies_have_each_providers_shape(fakes) -> None:
    anthropic, gemini, ollama = fakes["anthropic"], fakes["gemini"], fakes["ollama"]
    anthropic.fail_next(["429", "529"])
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    async with aiohttp.ClientSession() as session:
        url = f"{anthropic.base_url}/v1/messages"
        async with session.post(url, json=body, headers=headers) as resp:
            assert resp.status == 429 and resp.headers["Retry-After"] == "0"
            assert (await resp.json())["error"]["type"] == "rate_limit_error"
    status, err = await post(url, body, headers)
    assert status == 529 and err == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded (injected by fake provider)."},
    }
    gemini.fail_next(["429", "503"])
    gbody = {"contents": [{"parts": [{"text": "hi"}]}]}
    gurl = f"{gemini.base_url}/models/g:generateContent"
    status, err = await post(gurl, gbody, {"x-goog-api-key": "k"})
    assert status == 429 and err["error"]["status"] == "RESOURCE_EXHAUSTED"
    assert err["error"]["code"] == 429
    status, err = await post(gurl, gbody, {"x-goog-api-key": "k"})
    assert status == 503 and err["error"]["status"] == "UNAVAILABLE"
    ollama.fail_next(["429"])
    obody = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": False}
    status, err = await post(f"{ollama.base_url}/api/chat", obody)
    assert status == 429 and set(err) == {"error"}


async def test_gemini_openapi_schema_and_camel_case_fields(fakes) -> None:
    gemini = fakes["gemini"]
    schema = {
        "type": "OBJECT",
        "properties": {"score": {"type": "INTEGER", "minimum": 1, "maximum": 5}},
        "propertyOrdering": ["score"],
    }
    image = {"inlineData": {"mimeType": "image/png", "data": PNG}}
    body = {
        "contents": [{"role": "user", "parts": [image]}],
        "systemInstruction": {"parts": [{"text": "judge"}]},
        "generationConfig": {"responseMimeType": "application/json", "responseSchema": schema},
    }
    gurl = f"{gemini.base_url}/models/g:generateContent"
    status, answer = await post(gurl, body, {"x-goog-api-key": "k"})
    assert status == 200
    assert 1 <= json.loads(answer["candidates"][0]["content"]["parts"][0]["text"])["score"] <= 5
    assert [m["role"] for m in gemini.wire_calls[0].canonical["messages"]] == ["system", "user"]
    text_only = {**body, "generationConfig": {"responseSchema": schema}}
    status, err = await post(gurl, text_only, {"x-goog-api-key": "k"})
    assert status == 400 and "application/json" in err["error"]["message"]


async def test_ollama_json_mode_follows_a_schema_stated_in_the_prompt(fakes) -> None:
    ollama = fakes["ollama"]
    stated = f"Use this JSON schema: ```json {json.dumps(Score.model_json_schema())} ```"
    body = {"model": "m", "prompt": f"rate it\n{stated}", "format": "json", "stream": False}
    status, answer = await post(f"{ollama.base_url}/api/generate", body)
    assert status == 200 and answer["done"] is True
    assert Score.model_validate_json(answer["response"]).rationale == "fake rationale"


async def test_the_gateway_keeps_litellm_off_the_network_for_anthropic(monkeypatch) -> None:
    import httpx
    from litellm import anthropic_beta_headers_manager as beta

    import judge.llm.gateway  # noqa: F401  (sets litellm's offline switches)

    fetched: list[str] = []
    monkeypatch.setattr(httpx, "get", lambda url, **kw: fetched.append(url))
    assert beta.reload_beta_headers_config()  # the bundled table, not a download
    assert fetched == []


@pytest.mark.parametrize("api", ["anthropic", "gemini", "ollama"])
async def test_each_fake_runs_as_its_own_process(api: str) -> None:
    model = {"anthropic": "anthropic/fake-claude", "gemini": "gemini/gemini-2.5-flash"}
    proc, base_url = spawn_fake_provider(api=api, fault_rate=1.0, fault_kinds=("429",))
    try:
        root = base_url.removesuffix("/v1beta")
        kwargs = {"api_base": base_url, "api_key": "k", "max_retries": 0, "timeout": 60}
        name = model.get(api, "ollama_chat/llava")
        with pytest.raises(litellm.RateLimitError):
            await litellm.acompletion(model=name, messages=MESSAGES, **kwargs)
        status, _ = await post(f"{root}/_admin/config", {"fault_rate": 0})
        assert status == 200
        reply = await litellm.acompletion(
            model=name, messages=MESSAGES, response_format=FORMAT, **kwargs
        )
        Score.model_validate_json(reply.choices[0].message.content)
        async with aiohttp.ClientSession() as session, session.get(f"{root}/_admin/stats") as r:
            stats = await r.json()
        assert stats["api"] == api and stats["calls"] == 2 and stats["fault_counts"] == {"429": 1}
    finally:
        stop_process(proc)


def test_api_option_is_validated() -> None:
    assert parse_args(["--api", "gemini"]).api == "gemini"
    assert set(FAKES) == {"openai", "anthropic", "gemini", "ollama"}
    with pytest.raises(SystemExit):
        parse_args(["--api", "cohere"])
    with pytest.raises(ValueError, match="available: openai, anthropic, gemini, ollama"):
        spawn_fake_provider(api="cohere")
