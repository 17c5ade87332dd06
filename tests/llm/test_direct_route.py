"""The direct route (:mod:`judge.llm.direct`) against the litellm route, through real HTTP on
loopback: what the provider receives, what the judge accounts, and how errors are retried
must be the same either way."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiohttp import web
from PIL import Image
from pydantic import BaseModel

from judge.config import JudgeSettings
from judge.io.images import to_payload
from judge.llm import litellm_settings
from judge.llm.direct import DirectRoute, DirectRoutes
from judge.llm.direct.replay import through_litellm
from judge.llm.direct.template import _SPLICE_MIN, CANNED
from judge.llm.gateway import LLMGateway, response_format
from judge.llm.litellm_settings import OPENAI_HTTP_HANDLER
from judge.llm.ratelimit_headers import headers_of
from judge.llm.retry import route_label
from judge.llm.usage import UsageMeter
from skills.types import DataURL, ModelCallError
from tests.conftest import png_data_url
from tests.fakes.provider.responder import default_answer

ROOT = Path(__file__).resolve().parents[2]
MODELS = ("openai/fake", "openai/gpt-4o", "hosted_vllm/qwen")
TRANSIENT = ("429", "500", "503", "529", "truncated", "garbage")
_SMALL = png_data_url("red")
FATAL = {
    "401": "authentication failed (HTTP 401)",
    "403": "permission denied (HTTP 403)",
    "404": "model or endpoint not found (HTTP 404)",
}


class Verdict(BaseModel):
    rationale: str
    verdict: bool


def _settings(api_base: str | None, transport: str, **kw: Any) -> JudgeSettings:
    base: dict[str, Any] = dict(
        api_base=api_base,
        api_key="test-key",
        cache=False,
        backoff_base_s=0.01,
        backoff_max_s=0.02,
        timeout_s=5.0,
        llm_transport=transport,
    )
    return JudgeSettings(**(base | kw))


def _noisy_data_url(side: int = 512) -> DataURL:
    """A noisy RGBA image through the judge's own encoder: a large PNG :class:`DataURL`."""
    rng = random.Random(7)
    img = Image.frombytes("RGBA", (side, side), rng.randbytes(side * side * 4))
    url = to_payload(img, max_side=side).data_url
    assert isinstance(url, DataURL) and url.startswith("data:image/png;base64,")
    return url


def _messages(image: str) -> list[dict]:
    return [
        {"role": "system", "content": "judge the image"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Is it red?"},
                {"type": "image_url", "image_url": {"url": image}},
            ],
        },
    ]


def _calibrated(gw: LLMGateway) -> list[DirectRoute]:
    routes = list(gw.direct._routes.values())
    assert routes and all(r is not None for r in routes), gw.direct._routes
    return routes  # type: ignore[return-value]


async def _ask(
    model: str, messages: list[dict], s: JudgeSettings
) -> tuple[Verdict, UsageMeter, LLMGateway]:
    gw, meter = LLMGateway(s), UsageMeter()
    answer = await gw.structured(model, messages, Verdict, tag="t", meter=meter)
    return answer, meter, gw


async def _outcome(model: str, s: JudgeSettings) -> tuple[Any, UsageMeter, LLMGateway]:
    """The answer (or the ModelCallError's text) of one call, its meter and gateway."""
    gw, meter = LLMGateway(s), UsageMeter()
    try:
        answer: Any = await gw.structured(model, _messages(_SMALL), Verdict, tag="t", meter=meter)
    except ModelCallError as exc:
        answer = f"ModelCallError: {exc}"
    return answer, meter, gw


def _events(gw: LLMGateway, model: str, api_base: str | None) -> dict[str, int]:
    return dict(gw.limits.get(route_label(model, api_base)).events)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.asynccontextmanager
async def _recording_server() -> AsyncIterator[tuple[str, list[tuple[dict[str, str], bytes]]]]:
    """An OpenAI-compatible endpoint on loopback that keeps each request's headers and raw
    body bytes (the shared fake keeps only parsed bodies)."""
    seen: list[tuple[dict[str, str], bytes]] = []

    async def handle(request: web.Request) -> web.Response:
        raw = await request.read()
        seen.append(({k.lower(): v for k, v in request.headers.items()}, raw))
        content = default_answer(json.loads(raw))
        return web.json_response(
            {
                "id": f"chatcmpl-rec-{len(seen)}",
                "object": "chat.completion",
                "created": 0,
                "model": "rec",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
            }
        )

    app = web.Application(client_max_size=64 * 1024**2)
    app.router.add_post("/v1/chat/completions", handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}/v1", seen
    finally:
        await runner.cleanup()


# -- 1. same request, answer, tokens and cost ---------------------------------------------------


@pytest.mark.parametrize("image", ["small", "large"])
@pytest.mark.parametrize("model", MODELS)
async def test_both_routes_send_the_same_request_and_account_the_same(provider, model, image):
    url = _SMALL if image == "small" else _noisy_data_url()
    if image == "large":
        assert len(url) >= _SPLICE_MIN  # spliced into the body, not re-encoded
    messages = _messages(url)
    direct, direct_meter, gw = await _ask(model, messages, _settings(provider.base_url, "auto"))
    (route,) = _calibrated(gw)
    assert route.model == model
    assert provider.calls == 1
    lite, lite_meter, lite_gw = await _ask(model, messages, _settings(provider.base_url, "litellm"))
    assert lite_gw.direct._routes == {}
    assert provider.calls == 2
    first, second = provider.requests
    assert first == second
    assert first["messages"][1]["content"][1]["image_url"]["url"] == url
    a, b = provider.wire_calls
    assert a.images == b.images and len(a.images) == 1
    assert direct == lite
    assert (direct_meter.prompt_tokens, direct_meter.completion_tokens) == (
        lite_meter.prompt_tokens,
        lite_meter.completion_tokens,
    )
    assert direct_meter.prompt_tokens > 0 and direct_meter.completion_tokens > 0
    assert direct_meter.cost_usd == lite_meter.cost_usd
    if model == "openai/gpt-4o":
        assert direct_meter.cost_usd > 0
    assert direct_meter.snapshot() == lite_meter.snapshot()


async def _both_at_the_socket(model: str) -> list[tuple[dict[str, str], bytes]]:
    """What a recording endpoint received from the direct route, then from litellm."""
    messages = _messages(_noisy_data_url(256))
    async with _recording_server() as (base, seen):
        direct, _, gw = await _ask(model, messages, _settings(base, "auto"))
        _calibrated(gw)
        lite, _, _ = await _ask(model, messages, _settings(base, "litellm"))
    assert direct == lite
    assert len(seen) == 2
    return seen


@pytest.mark.parametrize("model", MODELS)
async def test_the_wire_bytes_are_the_same(model):
    """At the socket: the same body bytes from the judge's aiohttp client as from litellm."""
    (_, raw_direct), (_, raw_lite) = await _both_at_the_socket(model)
    assert raw_direct == raw_lite


@pytest.mark.parametrize("model", MODELS)
async def test_the_semantic_headers_are_the_same(model):
    """At the socket: the same Authorization, Content-Type, Accept and User-Agent."""
    (h_direct, _), (h_lite, _) = await _both_at_the_socket(model)
    assert h_direct["authorization"] == "Bearer test-key"
    names = ("authorization", "content-type", "accept", "user-agent")
    assert {n: h_direct.get(n) for n in names} == {n: h_lite.get(n) for n in names}


# -- 2. the template renders litellm's exact bytes ---------------------------------------------


def _awkward_messages() -> list[dict]:
    quoted = "data:image/png;base64," + "A" * _SPLICE_MIN + '"quoted'
    unicode_url = "data:image/png;base64," + "B" * _SPLICE_MIN + "é"
    plain_safe = "data:image/png;base64," + "C" * _SPLICE_MIN  # a plain str, JSON-safe
    assert not isinstance(quoted, DataURL)
    return [
        {"role": "system", "content": 'say "hi" \\ back\n\ttab é 漢字 😀 \x00\x07\x1f\x7f \u2028'},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": 'a "quote", a \\backslash\\, \x01 and \u00ff'},
                {"type": "image_url", "image_url": {"url": quoted}},
                {"type": "image_url", "image_url": {"url": unicode_url}},
                {"type": "image_url", "image_url": {"url": plain_safe}},
                {"type": "image_url", "image_url": {"url": _noisy_data_url(128)}},
                {"type": "image_url", "image_url": {"url": 'data:image/png;base64,AA"A'}},
            ],
        },
        {"role": "assistant", "content": '{"rationale": "\\"x\\"", "verdict": true}'},
        {"role": "user", "content": 'again, "please" \\n — with JSON \x1b only'},
    ]


async def litellm_request(
    model: str, messages: list[dict], fmt: dict, kwargs: dict[str, Any]
) -> list[httpx.Request]:
    """The one request litellm builds for the call (recorded, never sent)."""
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=CANNED, request=request)

    await through_litellm(record, model, messages, fmt, kwargs)
    assert len(seen) == 1
    return seen


@pytest.mark.parametrize("model", MODELS)
async def test_the_template_renders_the_bytes_litellm_sends(provider, model):
    _, _, gw = await _ask(model, _messages(_SMALL), _settings(provider.base_url, "auto"))
    (route,) = _calibrated(gw)
    messages = _awkward_messages()
    fmt = response_format(Verdict)
    seen = await litellm_request(model, messages, fmt, route.kwargs)
    rendered = route.template.render(messages, fmt)
    assert rendered == seen[0].content
    assert json.loads(rendered)["messages"] == messages
    assert b'\\"quoted' in rendered  # the plain str with a quote was encoded
    assert str(seen[0].url) == route.template.url
    sent = {k.lower(): v for k, v in seen[0].headers.items()}
    for name, value in route.template.headers.items():
        assert sent[name.lower()] == value


# -- 3. routes litellm rewrites stay on litellm -------------------------------------------------


async def test_a_model_whose_messages_litellm_rewrites_stays_on_litellm(provider):
    model = "openai/o3-mini"
    direct, meter, gw = await _ask(model, _messages(_SMALL), _settings(provider.base_url, "auto"))
    assert list(gw.direct._routes.values()) == [None]
    assert isinstance(direct, Verdict) and meter.llm_calls == 1
    lite, _, _ = await _ask(model, _messages(_SMALL), _settings(provider.base_url, "litellm"))
    first, second = provider.requests
    assert first == second and direct == lite
    assert first["messages"][0]["role"] != "system"  # litellm re-roled it


async def test_messages_of_another_shape_go_through_litellm(provider):
    messages = _messages(_SMALL)
    messages[1]["content"][1]["image_url"]["detail"] = "high"
    messages.append({"role": "user", "content": "and?", "name": "me"})
    direct, _, gw = await _ask("openai/fake", messages, _settings(provider.base_url, "auto"))
    assert gw.direct._routes == {}  # not even calibrated
    lite, _, _ = await _ask("openai/fake", messages, _settings(provider.base_url, "litellm"))
    first, second = provider.requests
    assert first == second and direct == lite


# -- 4. faults: the same retries, re-asks and failures ------------------------------------------


@pytest.mark.parametrize("kind", TRANSIENT)
@pytest.mark.parametrize("model", ["openai/fake", "hosted_vllm/qwen"])
async def test_a_transient_fault_is_handled_the_same(provider, model, kind):
    results = []
    for transport in ("auto", "litellm"):
        provider.reset()
        provider.fail_next([kind])
        s = _settings(provider.base_url, transport)
        answer, meter, gw = await _outcome(model, s)
        if transport == "auto":
            _calibrated(gw)
        results.append(
            (
                answer,
                provider.calls,
                provider.requests,
                meter.snapshot(),
                _events(gw, model, s.api_base),
            )
        )
        assert provider.fault_counts == {kind: 1}
    direct, lite = results
    assert isinstance(direct[0], Verdict)
    assert direct[0] == lite[0]
    assert direct[1] == lite[1] == 2
    assert direct[2] == lite[2]
    assert direct[3] == lite[3]
    assert (direct[3]["retries"], direct[3]["reasks"], direct[3]["failed_calls"]) == (
        (1, 0, 0) if kind not in ("truncated", "garbage") else (0, 1, 0)
    )
    assert direct[4] == lite[4]


@pytest.mark.parametrize("kind", TRANSIENT[:4])
async def test_the_same_error_class_reaches_the_retry_logic(provider, kind):
    """With no retries left, the error the gateway gives up on is of the same class."""
    results = []
    for transport in ("auto", "litellm"):
        provider.reset()
        provider.fail_next([kind])
        answer, meter, _ = await _outcome(
            "openai/fake", _settings(provider.base_url, transport, max_retries=0)
        )
        results.append((answer, provider.calls, meter.snapshot()))
    (direct, calls_d, meter_d), (lite, calls_l, meter_l) = results
    assert isinstance(direct, str) and direct.startswith("ModelCallError: gave up after 1")
    name = lambda text: text.split("attempts: ", 1)[1].split(":", 1)[0]  # noqa: E731
    assert name(direct) == name(lite), (direct, lite)
    assert calls_d == calls_l == 1 and meter_d == meter_l


@pytest.mark.parametrize("kind", sorted(FATAL))
async def test_a_fatal_fault_fails_the_same(provider, kind):
    results = []
    for transport in ("auto", "litellm"):
        provider.reset()
        provider.fail_next([kind])
        answer, meter, _ = await _outcome("openai/fake", _settings(provider.base_url, transport))
        results.append((answer, provider.calls, meter.snapshot()))
    (direct, calls_d, meter_d), (lite, calls_l, meter_l) = results
    assert isinstance(direct, str) and FATAL[kind] in direct
    assert direct == lite
    assert calls_d == calls_l == 1
    assert meter_d == meter_l and meter_d["failed_calls"] == 1 and meter_d["retries"] == 0


# -- 5. timeouts and refused connections --------------------------------------------------------


async def test_a_timeout_is_retried_like_on_litellm(provider):
    assert provider.hang_s > 0.5
    results = []
    for transport in ("auto", "litellm"):
        provider.reset()
        provider.fail_next(["timeout"])
        s = _settings(provider.base_url, transport, timeout_s=0.5)
        answer, meter, gw = await _outcome("openai/fake", s)
        if transport == "auto":
            _calibrated(gw)
        events = _events(gw, "openai/fake", s.api_base)
        results.append((answer, provider.calls, meter.snapshot(), events))
    direct, lite = results
    assert isinstance(direct[0], Verdict) and direct[0] == lite[0]
    assert direct[1] == lite[1] == 2
    assert direct[2] == lite[2] and direct[2]["retries"] == 1
    assert direct[3] == lite[3] == {"timeout": 1}


async def test_a_timeout_with_no_retry_left_gives_up_like_litellm(provider):
    results = []
    for transport in ("auto", "litellm"):
        provider.reset()
        provider.fail_next(["timeout"])
        s = _settings(provider.base_url, transport, timeout_s=0.5, max_retries=0)
        answer, meter, _ = await _outcome("openai/fake", s)
        results.append((answer, meter.snapshot()))
    (direct, meter_d), (lite, meter_l) = results
    assert isinstance(direct, str) and direct.startswith("ModelCallError: gave up after 1")
    assert "Timeout" in direct.split("attempts: ", 1)[1].split(":", 1)[0]
    assert direct.split(":", 2)[:2] == lite.split(":", 2)[:2], (direct, lite)
    assert meter_d == meter_l


async def _refused() -> list[tuple[Any, dict]]:
    """A call to a closed loopback port on each route: (outcome, meter snapshot)."""
    base = f"http://127.0.0.1:{_closed_port()}/v1"
    results = []
    for transport in ("auto", "litellm"):
        answer, meter, gw = await _outcome("openai/fake", _settings(base, transport))
        if transport == "auto":
            _calibrated(gw)  # the route was taken (calibration needs no server)
        results.append((answer, meter.snapshot()))
    return results


async def test_a_refused_connection_fails_at_once(provider):
    (direct, meter_d), (lite, meter_l) = await _refused()
    assert isinstance(direct, str) and "connection refused" in direct
    assert meter_d["retries"] == 0 and meter_d["failed_calls"] == 1
    assert meter_d == meter_l
    assert direct.split(" [")[0] == lite.split(" [")[0]
    assert provider.calls == 0


async def test_a_refused_connection_reaches_the_retry_logic_as_the_same_class(provider):
    """The error class is named at the end of the message (``[APIConnectionError]``)."""
    (direct, _), (lite, _) = await _refused()
    assert direct == lite


# -- 6. rate-limit headers reach the adaptive limit ---------------------------------------------


async def test_rate_limit_headers_reach_the_adaptive_limit(provider):
    """Two calls at once against a bucket of one call refilled at 4 a second: one is answered
    (no request left in the window), the other refused with a 429 and ``retry-after-ms``
    (~250 ms). The retry must wait for it (the backoff alone is at most 20 ms): one 429, one
    retry, on both routes."""
    model = "openai/fake"
    results = []
    for transport in ("auto", "litellm"):
        provider.reset()
        s = _settings(provider.base_url, transport)
        gw = LLMGateway(s)
        warm = [{"role": "user", "content": "warm"}]
        await gw.structured(model, warm, Verdict, tag="t", meter=UsageMeter())
        if transport == "auto":
            _calibrated(gw)
        meter = UsageMeter()
        provider.rate_limit.configure(4.0, burst=1)
        try:
            started = time.monotonic()
            await asyncio.gather(
                *(
                    gw.structured(
                        model, [{"role": "user", "content": t}], Verdict, tag="t", meter=meter
                    )
                    for t in ("one", "two")
                )
            )
            waited = time.monotonic() - started
            refused = provider.rate_limit.refused
        finally:
            provider.rate_limit.configure(0.0)
        lim = gw.limits.get(route_label(model, s.api_base))
        results.append((dict(lim.events), meter.snapshot(), refused, waited))
    direct, lite = results
    assert direct[2] == 1 and direct[0].get("429") == 1, direct
    assert direct[1]["retries"] == 1 and direct[1]["llm_calls"] == 2
    assert direct[0] == lite[0]
    assert direct[1] == lite[1]
    assert direct[2] == lite[2]
    assert direct[3] >= 0.2 and lite[3] >= 0.2, (direct[3], lite[3])


async def test_a_429s_retry_after_reaches_the_retry_logic(provider):
    """The error the direct route raises for a refused call carries the provider's
    ``retry-after`` (what the gateway hands the adaptive limit), as litellm's does."""
    model = "openai/fake"
    _, _, gw = await _ask(model, _messages(_SMALL), _settings(provider.base_url, "auto"))
    (route,) = _calibrated(gw)
    litellm = litellm_settings.load()
    messages = [{"role": "user", "content": "hello"}]
    fmt = response_format(Verdict)
    seen = []
    for transport in ("auto", "litellm"):
        provider.rate_limit.configure(4.0, burst=1)  # one call, then 429 for ~250 ms
        try:
            with pytest.raises(litellm.RateLimitError) as caught:
                for _ in range(2):
                    if transport == "auto":
                        await route.send(messages, fmt, timeout_s=5.0)
                    else:
                        await litellm.acompletion(
                            model=model, messages=messages, response_format=fmt,
                            drop_params=True, **route.kwargs,
                        )  # fmt: skip
        finally:
            provider.rate_limit.configure(0.0)
        seen.append(headers_of(caught.value))
    direct, lite = seen
    assert direct is not None and lite is not None
    assert direct.retry_after_s is not None and direct.retry_after_s > 0.1, direct
    assert lite.retry_after_s is not None and lite.retry_after_s > 0.1, lite
    assert (direct.limit_requests, direct.left_requests) == (
        lite.limit_requests,
        lite.left_requests,
    )


# -- 7. the switch ------------------------------------------------------------------------------


async def test_the_environment_switch_sends_everything_through_litellm(provider, monkeypatch):
    monkeypatch.setenv("JUDGE_LLM_TRANSPORT", "litellm")
    s = JudgeSettings(api_base=provider.base_url, api_key="k", cache=False)
    assert s.llm_transport == "litellm"
    assert not DirectRoutes().eligible("openai/fake", s)
    gw, meter = LLMGateway(s), UsageMeter()
    answer = await gw.structured("openai/fake", _messages(_SMALL), Verdict, tag="t", meter=meter)
    assert isinstance(answer, Verdict) and provider.calls == 1
    assert gw.direct._routes == {}


# -- 8. who may take the direct route -----------------------------------------------------------


def test_only_openai_compatible_endpoints_are_eligible() -> None:
    routes = DirectRoutes()
    with_base = JudgeSettings(api_base="http://127.0.0.1:1/v1")
    assert routes.eligible("openai/fake", with_base)
    assert routes.eligible("hosted_vllm/qwen", with_base)
    assert not routes.eligible("openai/fake", JudgeSettings())  # no api_base
    assert not routes.eligible("mock/judge", with_base)
    assert not routes.eligible("anthropic/claude-3-5-sonnet-20240620", with_base)
    assert not routes.eligible("gemini/gemini-1.5-pro", with_base)
    assert not routes.eligible("ollama/llama3", with_base)
    assert not routes.eligible("ollama_chat/llama3", with_base)
    with litellm_settings.applied({OPENAI_HTTP_HANDLER: "false"}):
        assert not routes.eligible("openai/fake", with_base)
    assert routes.eligible("openai/fake", with_base)


async def test_with_the_sdk_client_openai_calls_stay_on_litellm(provider):
    with litellm_settings.applied({OPENAI_HTTP_HANDLER: "false"}):
        answer, _, gw = await _ask(
            "openai/fake", _messages(_SMALL), _settings(provider.base_url, "auto")
        )
    assert gw.direct._routes == {} and isinstance(answer, Verdict) and provider.calls == 1


async def test_the_mock_model_takes_no_direct_route(provider):
    answer, meter, gw = await _ask(
        "mock/judge", _messages(_SMALL), _settings(provider.base_url, "auto")
    )
    assert isinstance(answer, Verdict) and meter.llm_calls == 1
    assert gw.direct._routes == {} and provider.calls == 0


# -- 9. the session closes with its loop --------------------------------------------------------

_LOOPS = """
import asyncio, gc
from pydantic import BaseModel
from judge.config import JudgeSettings
from judge.llm.direct import transport
from judge.llm.gateway import LLMGateway
from judge.llm.usage import UsageMeter

class V(BaseModel):
    verdict: bool

async def once(text):
    s = JudgeSettings(api_base={base!r}, api_key="k", cache=False)
    gw = LLMGateway(s)
    msgs = [{{"role": "user", "content": text}}]
    answer = await gw.structured("openai/fake", msgs, V, tag="t", meter=UsageMeter())
    routes = list(gw.direct._routes.values())
    assert routes and None not in routes, routes
    return answer, await transport.session()

a, first = asyncio.run(once("one"))
b, second = asyncio.run(once("two"))
gc.collect()
print("RESULT", a.verdict, b.verdict, first is not second, first.closed, second.closed)
"""


@pytest.mark.slow
def test_the_session_closes_with_its_loop(provider):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    code = textwrap.dedent(_LOOPS.format(base=provider.base_url))
    out = subprocess.run(
        [sys.executable, "-W", "error", "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "RESULT True True True True True" in out.stdout, (out.stdout, out.stderr[-3000:])
    assert "Unclosed" not in out.stderr and "unclosed" not in out.stderr, out.stderr[-3000:]
    assert provider.calls == 2


async def test_a_burst_of_first_calls_calibrates_the_route_once(provider, monkeypatch) -> None:
    """The first calls of a burst wait for one calibration; a calibration cancelled midway is
    taken over by a call that was waiting for it."""
    calibrations: list[str] = []
    calibrate = DirectRoutes._calibrate

    async def counted(self, model, kwargs):
        calibrations.append(model)
        await asyncio.sleep(0.05)  # long enough for the burst to arrive meanwhile
        return await calibrate(self, model, kwargs)

    monkeypatch.setattr(DirectRoutes, "_calibrate", counted)
    settings = JudgeSettings(api_base=provider.base_url, api_key="k")
    kwargs = {"temperature": 0.0, "api_base": provider.base_url, "api_key": "k"}
    messages = [{"role": "user", "content": "hi"}]
    routes = DirectRoutes()
    got = await asyncio.gather(
        *(routes.route("openai/fake", kwargs, messages, settings) for _ in range(20))
    )
    assert len(calibrations) == 1 and got[0] is not None and all(r is got[0] for r in got)

    again = DirectRoutes()
    first = asyncio.create_task(again.route("openai/fake", kwargs, messages, settings))
    await asyncio.sleep(0.01)
    waiting = asyncio.create_task(again.route("openai/fake", kwargs, messages, settings))
    await asyncio.sleep(0.01)
    first.cancel()
    assert isinstance(await waiting, DirectRoute)
    assert first.cancelled() and len(calibrations) == 3
