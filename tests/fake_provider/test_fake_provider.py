"""The fake OpenAI-compatible provider, exercised through real litellm over loopback HTTP."""

from __future__ import annotations

import asyncio
import enum
import json
import re
import time
from collections.abc import Iterator
from typing import Any, Literal

import aiohttp
import litellm
import pytest
from pydantic import BaseModel, Field

from tests.fakes.provider import (
    FakeProvider,
    FakeProviderStartError,
    FaultInjector,
    default_answer,
    spawn_fake_provider,
    stop_process,
)
from tests.fakes.provider.__main__ import parse_args

litellm.suppress_debug_info = True


class Verdict(enum.Enum):
    PASS = "pass"
    FAIL = "fail"


class CheckItem(BaseModel):
    id: Literal["c1", "c2", "c3"]
    satisfied: bool
    verdict: Verdict
    note: str | None = None


class Judgement(BaseModel):
    score: int = Field(ge=1, le=5)
    confidence: float = Field(ge=0, le=1)
    rationale: str = Field(min_length=3, max_length=40)
    kind: Literal["subjective"] = "subjective"
    checklist: list[CheckItem]
    tags: list[str] = Field(min_length=2)


def schema_format(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema()
    return {"type": "json_schema", "json_schema": {"name": "x", "schema": schema}}


def user(text: str) -> list[dict[str, Any]]:
    return [{"role": "system", "content": "You are a judge."}, {"role": "user", "content": text}]


async def ask(provider: FakeProvider, text: str = "hi", **kwargs: Any) -> Any:
    kwargs.setdefault("timeout", 5)
    return await litellm.acompletion(
        model="openai/fake",
        api_base=provider.base_url,
        api_key="x",
        max_retries=0,
        messages=user(text),
        **kwargs,
    )


def content(response: Any) -> str:
    return response.choices[0].message.content


@pytest.fixture
def provider() -> Iterator[FakeProvider]:
    with FakeProvider() as fake:
        yield fake


async def test_default_answer_is_schema_valid_through_litellm(provider: FakeProvider) -> None:
    response = await ask(provider, "rate this image", response_format=schema_format(Judgement))
    judgement = Judgement.model_validate_json(content(response))
    assert [item.id for item in judgement.checklist] == ["c1", "c2", "c3"]  # one item per id
    assert response.choices[0].finish_reason == "stop"
    usage = response.usage
    assert usage.prompt_tokens > 0 < usage.completion_tokens
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    recorded = provider.requests[0]["response_format"]["json_schema"]["schema"]
    assert recorded == Judgement.model_json_schema()
    # litellm turns a pydantic class into a strict schema (all fields required); still valid
    response = await ask(provider, "rate this image", response_format=Judgement)
    Judgement.model_validate_json(content(response))


def test_default_answer_deterministic_and_prompt_dependent() -> None:
    def body(text: str) -> dict[str, Any]:
        return {"messages": user(text), "response_format": schema_format(Judgement)}

    assert default_answer(body("a")) == default_answer(body("a"))
    scores = {json.loads(default_answer(body(f"prompt {i}")))["score"] for i in range(30)}
    assert len(scores) > 1 and scores <= {1, 2, 3, 4, 5}
    assert json.loads(default_answer({"messages": user("a")})) == {"answer": "ok"}
    assert json.loads(default_answer({"messages": [], "response_format": {"type": "json_object"}}))


def test_default_answer_schema_corners() -> None:
    schema = {
        "type": "object",
        "properties": {
            "c": {"const": 7},
            "n": {"type": ["null", "integer"], "exclusiveMinimum": 3, "exclusiveMaximum": 5},
            "s": {"type": "string", "maxLength": 4},
            "d": {"type": "string", "format": "date-time"},
            "all": {"allOf": [{"$ref": "#/$defs/E"}]},
            "few": {"type": "array", "items": {"type": "boolean"}, "minItems": 3, "maxItems": 3},
            "none": {"type": "array", "items": {"type": "integer"}, "maxItems": 0},
            "nul": {"type": "null"},
        },
        "$defs": {"E": {"enum": ["x", "y"]}},
    }
    fmt = {"type": "json_schema", "json_schema": {"schema": schema}}
    answer = json.loads(default_answer({"messages": [], "response_format": fmt}))
    assert answer == {
        "c": 7, "n": 4, "s": "fake", "d": "2024-01-01T00:00:00Z", "all": "x",
        "few": [True, True, True], "none": [], "nul": None,
    }  # fmt: skip


async def test_scripted_replies_by_substring_callable_and_times(provider: FakeProvider) -> None:
    rule = provider.on("alpha", {"score": 1}, times=1)
    provider.on(lambda body: "alpha" in json.dumps(body), "second alpha rule")
    provider.on("beta", lambda body: {"echo": body["messages"][-1]["content"]})
    provider.on("You are a judge", "system prompts match too")

    assert json.loads(content(await ask(provider, "alpha"))) == {"score": 1}
    assert content(await ask(provider, "alpha")) == "second alpha rule"  # times exhausted
    assert json.loads(content(await ask(provider, "beta!"))) == {"echo": "beta!"}
    assert content(await ask(provider, "gamma")) == "system prompts match too"
    assert rule.hits == 1 and provider.calls == 4
    provider.reset()
    assert provider.calls == 0 and json.loads(content(await ask(provider, "alpha"))) == {
        "answer": "ok"
    }


@pytest.mark.parametrize(
    ("kind", "error"),
    [
        ("429", litellm.RateLimitError),
        ("500", litellm.InternalServerError),
        ("503", litellm.ServiceUnavailableError),
        ("timeout", litellm.Timeout),
    ],
)
async def test_error_faults_map_to_litellm_exceptions(
    provider: FakeProvider, kind: str, error: type[Exception]
) -> None:
    provider.hang_s = 1.0
    provider.fail_next([kind])
    with pytest.raises(error):
        await ask(provider, timeout=0.3)
    assert provider.calls == 1 and provider.fault_counts == {kind: 1}
    assert content(await ask(provider)) == '{"answer": "ok"}'  # queue consumed


async def test_content_faults_give_malformed_json(provider: FakeProvider) -> None:
    provider.on("score", {"score": 5}, times=1)
    provider.fail_next(["truncated", "garbage"])
    truncated = await ask(provider, "score", response_format=schema_format(Judgement))
    assert content(truncated) == '{"scor' and truncated.choices[0].finish_reason == "length"
    garbage = await ask(provider, "score")
    for response in (truncated, garbage):
        with pytest.raises(json.JSONDecodeError):
            json.loads(content(response))
    # faulted calls did not use up the scripted reply
    assert json.loads(content(await ask(provider, "score"))) == {"score": 5}
    assert provider.fault_counts == {"truncated": 1, "garbage": 1}


async def test_http_details(provider: FakeProvider) -> None:
    url = provider.base_url
    async with aiohttp.ClientSession() as session:
        provider.fail_next(["429"])
        async with session.post(f"{url}/chat/completions", json={"messages": []}) as resp:
            assert resp.status == 429 and resp.headers["Retry-After"] == "0"
            assert (await resp.json())["error"]["type"] == "rate_limit_error"
        async with session.post(f"{url}/chat/completions", data=b"{not json") as resp:
            assert resp.status == 400 and "error" in await resp.json()
        plain = {"model": "m", "messages": user("hi")}
        async with session.post(f"{url}/chat/completions", json={**plain, "stream": True}) as resp:
            assert resp.status == 400 and "stream" in (await resp.json())["error"]["message"]
        async with session.post(f"{url}/chat/completions", json=plain) as resp:
            body = await resp.json()
            assert {"id", "object", "created", "model", "choices", "usage"} <= body.keys()
            assert body["model"] == "m" and body["object"] == "chat.completion"
        async with session.get(f"{url}/models") as resp:
            assert (await resp.json())["data"][0]["id"] == "fake"
    with pytest.raises(litellm.BadRequestError):
        await ask(provider, stream=True)


async def test_fault_rate_is_deterministic_given_seed(provider: FakeProvider) -> None:
    async def statuses() -> list[int]:
        provider.reset()
        provider.set_fault_rate(0.5, kinds=("429", "500"), seed=7)
        async with aiohttp.ClientSession() as session:
            result = []
            for _ in range(20):
                async with session.post(
                    f"{provider.base_url}/chat/completions", json={"messages": user("x")}
                ) as resp:
                    result.append(resp.status)
            return result

    first, second = await statuses(), await statuses()
    assert first == second and {200, 429, 500} == set(first)
    assert sum(provider.fault_counts.values()) == sum(s != 200 for s in first)
    with pytest.raises(ValueError, match="available"):
        FaultInjector(kinds=("418",))


async def test_latency_overlaps_concurrent_calls(provider: FakeProvider) -> None:
    await ask(provider)  # warm up litellm's client
    provider.latency = 0.3
    provider.gate.group(10)  # held until all ten have arrived: "in flight at once" is a fact
    start = time.perf_counter()
    responses = await asyncio.gather(*(ask(provider, f"p{i}") for i in range(10)))
    elapsed = time.perf_counter() - start
    # each waited its latency; no upper bound on the wall time (a loaded machine staggers)
    assert len(responses) == 10 and provider.max_in_flight == 10
    assert elapsed >= 0.3


async def test_the_gate_holds_calls_until_opened(provider: FakeProvider) -> None:
    await ask(provider)
    provider.gate.hold()
    calls = [asyncio.create_task(ask(provider, f"h{i}")) for i in range(3)]
    assert await asyncio.to_thread(provider.gate.wait_held, 3) == 3
    assert provider.in_flight == 3 and not any(c.done() for c in calls)
    provider.gate.open()
    assert len(await asyncio.gather(*calls)) == 3 and provider.in_flight == 0
    provider.gate.group(2, timeout_s=0.2)  # an unfilled group gives up instead of hanging
    await ask(provider, "alone")
    assert provider.max_in_flight == 3


async def test_admin_gate_holds_calls_and_says_whose_they_are() -> None:
    """The gate steered over HTTP, as a test does for a fake in another process."""
    proc, base_url = spawn_fake_provider(latency=0.0)
    root = base_url.removesuffix("/v1")
    kwargs = {"model": "openai/fake", "api_base": base_url, "max_retries": 0}
    try:
        async with aiohttp.ClientSession() as session:
            async with session.post(f"{root}/_admin/gate", json={"hold": "yes"}) as resp:
                assert resp.status == 400  # a clear refusal, not a guess
            async with session.post(f"{root}/_admin/gate", json={"hold": True}) as resp:
                assert (await resp.json()) == {"hold": True, "held": 0}
            calls = [
                asyncio.create_task(litellm.acompletion(messages=user(k), api_key=k, **kwargs))
                for k in ("key-a", "key-a", "key-b")
            ]
            stats: dict[str, Any] = {}
            while stats.get("held", 0) < 3:  # each poll is a round trip: no sleep needed
                assert not any(c.done() for c in calls), [c.exception() for c in calls if c.done()]
                async with session.get(f"{root}/_admin/stats") as resp:
                    stats = await resp.json()
            assert stats["held_by"] == {"key-a": 2, "key-b": 1}
            async with session.post(f"{root}/_admin/gate", json={"hold": False}) as resp:
                assert (await resp.json())["hold"] is False
            assert len(await asyncio.gather(*calls)) == 3
    finally:
        stop_process(proc)


async def test_subprocess_mode_with_admin_endpoints() -> None:
    proc, base_url = spawn_fake_provider(latency=0.01, fault_rate=1.0, fault_kinds=("500",))
    root = base_url.removesuffix("/v1")
    try:
        assert base_url.startswith("http://127.0.0.1:")
        kwargs = {"model": "openai/fake", "api_base": base_url, "api_key": "x", "max_retries": 0}
        with pytest.raises(litellm.InternalServerError):
            await litellm.acompletion(messages=user("hi"), **kwargs)
        async with aiohttp.ClientSession() as session:
            async with session.get(f"{root}/_admin/stats") as resp:
                stats = await resp.json()
            assert stats["calls"] == 1 and stats["fault_counts"] == {"500": 1}
            async with session.post(f"{root}/_admin/config", json={"fault_rate": 0}) as resp:
                assert (await resp.json())["fault_rate"] == 0
            async with session.post(f"{root}/_admin/config", json={"bogus": 1}) as resp:
                assert resp.status == 400
            response = await litellm.acompletion(messages=user("hi"), **kwargs)
            assert json.loads(content(response)) == {"answer": "ok"}
            async with session.post(f"{root}/_admin/reset") as resp:
                assert resp.status == 200
            async with session.get(f"{root}/_admin/stats") as resp:
                assert (await resp.json())["calls"] == 0
    finally:
        stop_process(proc)
    assert proc.returncode is not None


def test_spawn_fails_clearly_and_cli_validates_kinds() -> None:
    with pytest.raises(FakeProviderStartError, match="READY"):
        spawn_fake_provider(ready_timeout=0.001)
    with pytest.raises(SystemExit):
        parse_args(["--fault-kinds", "429,teapot"])


def test_default_answer_reads_bounds_stated_in_words_and_bare_defs_refs() -> None:
    schema = {
        "type": "object",
        "$defs": {"Item": {"type": "object", "properties": {"id": {"enum": ["a", "b"]}}}},
        "properties": {
            "score": {
                "type": "integer",
                "description": "Note: minimum value: 1, maximum value: 5.",
            },
            "low": {"type": "number", "description": "exclusive maximum value: 0.5"},
            "items": {"type": "array", "items": {"$ref": "/$defs/Item"}},
        },
    }
    for seed in range(20):
        body = {"messages": [{"role": "user", "content": f"p{seed}"}]}
        body["response_format"] = {"type": "json_schema", "json_schema": {"schema": schema}}
        answer = json.loads(default_answer(body))
        assert 1 <= answer["score"] <= 5 and 0 <= answer["low"] < 0.5
        assert answer["items"] == [{"id": "a"}, {"id": "b"}]


async def test_openai_fake_proves_data_url_images(provider: FakeProvider) -> None:
    from tests.conftest import png_data_url

    async def send(parts: list[dict[str, Any]]) -> Any:
        return await litellm.acompletion(
            model="openai/fake",
            api_base=provider.base_url,
            api_key="x",
            max_retries=0,
            messages=[{"role": "user", "content": parts}],
        )

    await send([{"type": "image_url", "image_url": {"url": png_data_url(size=(3, 2))}}])
    assert [(i.mime, i.width) for i in provider.wire_calls[0].images] == [("image/png", 3)]
    bad = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    with pytest.raises(litellm.BadRequestError, match="not a PNG, JPEG"):
        await send([{"type": "text", "text": "x"}, bad])
    assert provider.calls == 1 and len(provider.rejected) == 1


def test_a_repeated_image_payload_is_decoded_once_and_bad_ones_stay_refused() -> None:
    """The fake checks each payload once: the same bytes get the same verdict without a second
    decode, and a payload it refused is refused again (with where it was) every time."""
    from tests.conftest import png_data_url
    from tests.fakes.provider import wire

    url = png_data_url("blue", size=(40, 30))
    before = wire._decoded.cache_info()
    first = wire.decode_data_url(url, where="messages[0].content[1]")
    again = wire.decode_data_url(url, where="messages[3].content[0]")
    after = wire._decoded.cache_info()
    assert again == first and (first.mime, first.width, first.height) == ("image/png", 40, 30)
    assert (after.misses - before.misses, after.hits - before.hits) == (1, 1)
    truncated = url[: len(url) // 2]
    truncated += "=" * (-len(truncated.split(",", 1)[1]) % 4)
    for where in ("messages[0].content[1]", "messages[2].content[0]"):
        with pytest.raises(wire.WireError, match=rf"^{re.escape(where)}: the image could not"):
            wire.decode_data_url(truncated, where=where)
    with pytest.raises(wire.WireError, match="declared as image/jpeg but is image/png"):
        wire.decode_data_url(url.replace("image/png", "image/jpeg", 1), where="m")


async def test_keep_calls_bounds_the_records_not_the_count() -> None:
    """A long benchmark keeps the newest records only; ``calls`` still counts every call
    (the subprocess fake's ``--keep-calls``, 1000 unless given)."""
    with FakeProvider(keep_calls=2) as fake:
        for text in ("one", "two", "three"):
            await ask(fake, text)
        assert fake.calls == 3
        assert [c.body["messages"][-1]["content"] for c in fake.wire_calls] == ["two", "three"]
        fake.reset()
        assert fake.calls == 0 and fake.wire_calls == []
    assert parse_args([]).keep_calls == 1000
    assert parse_args(["--keep-calls", "5"]).keep_calls == 5
