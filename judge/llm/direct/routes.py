"""Which calls take the direct route, each route's calibration, and one call on it.

See :mod:`judge.llm.direct` for the whole story.

Example::

    routes = DirectRoutes()
    route = await routes.route("hosted_vllm/qwen2-vl", kwargs, messages, settings)
    if route is not None:  # else the call goes through litellm
        reply = await route.send(messages, fmt, timeout_s=60)
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass
from typing import Any

import httpx

from judge.config import JudgeSettings
from judge.llm import litellm_settings
from judge.llm.direct.template import CANNED, FORMAT, PROBE, RequestTemplate, plain, template_of
from judge.llm.ratelimit_headers import rate_headers
from judge.llm.reply import Reply, from_litellm

#: litellm providers whose chat calls are OpenAI's wire format, sent as built
PROVIDERS = frozenset({"openai", "hosted_vllm"})
#: usage keys whose presence leaves litellm's price a plain per-token price
_PLAIN_USAGE = frozenset({"prompt_tokens", "completion_tokens", "total_tokens"})
#: calibrated routes kept per gateway (a new key, a new temperature, ...: one more)
MAX_ROUTES = 256
#: environment variables that give litellm's client a proxy (the route then stays on litellm)
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                   "all_proxy")  # fmt: skip


@dataclass
class DirectRoute:
    """One calibrated route: a model at an endpoint, with a key and call parameters."""

    model: str
    provider: str
    provider_model: str
    template: RequestTemplate
    kwargs: dict[str, Any]
    priced: bool

    async def send(self, messages: list[dict], fmt: dict, timeout_s: float) -> Reply:
        """One round trip; litellm's errors on failure (see :mod:`judge.llm.direct`)."""
        from judge.llm.direct.transport import TransportFailure, post

        body = self.template.render(messages, fmt)
        try:
            status, headers, raw = await post(
                self.template.url, self.template.headers, body, timeout_s
            )
        except TransportFailure as failure:
            return await self._failed(messages, fmt, failure.error)
        reply = self._read(status, headers, raw)
        if reply is not None:
            return reply
        return await self._through_litellm(messages, fmt, status, headers, raw)

    def _read(self, status: int, headers: Any, raw: bytes) -> Reply | None:
        """The reply of a plain 200, or None when litellm should read it: a compressed
        body, an ``error`` object, another model than asked for (litellm prices by the model
        that answered), a reply opening with a tag (litellm moves a leading ``<think>``
        block out of the text), usage that is missing or not plain counts."""
        if status != 200 or headers.get("Content-Encoding", "identity").lower() != "identity":
            return None
        try:
            data = json.loads(raw)
            message = data["choices"][0]["message"]
            usage = data["usage"]
        except (ValueError, KeyError, IndexError, TypeError):
            return None
        if "error" in data or data.get("model") != self.provider_model:
            return None
        text = message.get("content") if isinstance(message, dict) else None
        if not (text is None or isinstance(text, str)) or not isinstance(usage, dict):
            return None
        if text is not None and text.lstrip().startswith("<"):
            return None
        prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
        if type(prompt) is not int or type(completion) is not int or prompt < 0 or completion < 0:
            return None
        cost = 0.0
        if self.priced:
            if usage.keys() - _PLAIN_USAGE:  # cached or reasoning tokens: litellm's price
                return None
            litellm = litellm_settings.load()
            parts = litellm.cost_per_token(
                model=self.provider_model, custom_llm_provider=self.provider,
                prompt_tokens=prompt, completion_tokens=completion,
            )  # fmt: skip
            cost = float(sum(parts))
        return Reply(text or "", prompt, completion, cost, rate_headers(headers))

    async def _through_litellm(
        self, messages: list[dict], fmt: dict, status: int, headers: Any, raw: bytes
    ) -> Reply:
        """litellm reads the answer as if it had sent the request (errors raise)."""
        from judge.llm.direct.replay import through_litellm

        def answer(request: httpx.Request) -> httpx.Response:
            return httpx.Response(status, headers=list(headers.items()), content=raw,
                                  request=request)  # fmt: skip

        resp = await through_litellm(answer, self.model, messages, fmt, self.kwargs)
        return from_litellm(self.model, resp)

    async def _failed(self, messages: list[dict], fmt: dict, error: BaseException) -> Reply:
        """No answer came: litellm meets the same failure in its own HTTP client and raises
        what it raises on its route (its class, its message; the original in the chain)."""
        from judge.llm.direct.replay import through_litellm

        def answer(request: httpx.Request) -> httpx.Response:
            raise error

        await through_litellm(answer, self.model, messages, fmt, self.kwargs)
        raise AssertionError("litellm answered a call that failed")  # pragma: no cover


def _true(value: str | None) -> bool:
    return (value or "").strip().lower() == "true"


def _key(model: str, kwargs: dict[str, Any]) -> tuple:
    return (model, *sorted((k, str(v)) for k, v in kwargs.items()))


class DirectRoutes:
    """The calibrated routes of one gateway (see :mod:`judge.llm.direct`)."""

    def __init__(self) -> None:
        self._routes: dict[tuple, DirectRoute | None] = {}
        #: calibrations under way: the first calls of a burst wait for one, not one each
        self._pending: dict[tuple, asyncio.Future[DirectRoute | None]] = {}

    def eligible(self, model: str, settings: JudgeSettings) -> bool:
        """True when calls of ``model`` under ``settings`` may take the direct route."""
        base = settings.api_base or ""
        if settings.llm_transport != "auto" or not base.lower().startswith("http://"):
            return False  # https: litellm's TLS settings (ssl_verify, certificates) apply
        from judge.llm import mock
        from judge.llm.warmup import provider_of

        provider = provider_of(model)
        if mock.is_mock(model) or provider not in PROVIDERS:
            return False
        if any(os.environ.get(name) for name in PROXY_VARIABLES):
            return False  # litellm's client would go through the proxy
        litellm = litellm_settings.load()
        if litellm.disable_aiohttp_transport or _true(os.environ.get("DISABLE_AIOHTTP_TRANSPORT")):
            return False  # litellm's client is then httpx's own, with other failure names
        handler = os.environ.get(litellm_settings.OPENAI_HTTP_HANDLER, "")
        # with the OpenAI SDK client, litellm would not use the calibration's local client
        return provider != "openai" or _true(handler)

    async def route(
        self, model: str, kwargs: dict[str, Any], messages: list[dict], settings: JudgeSettings
    ) -> DirectRoute | None:
        """The calibrated route for this call, or None when it goes through litellm."""
        if not self.eligible(model, settings) or not plain(messages):
            return None
        key = _key(model, kwargs)
        loop = asyncio.get_running_loop()
        while key not in self._routes:
            pending = self._pending.get(key)
            if pending is not None and not pending.done() and pending.get_loop() is loop:
                await asyncio.wait({pending})  # done or given up: look again
                continue
            pending = self._pending[key] = loop.create_future()
            try:
                route = await self._calibrate(model, kwargs)
                if len(self._routes) >= MAX_ROUTES:  # per-call settings that keep changing
                    self._routes.clear()
                self._routes[key] = route
            finally:  # cancelled while calibrating: a waiting call takes over
                self._pending.pop(key, None)
                pending.cancel()
        return self._routes[key]

    async def _calibrate(self, model: str, kwargs: dict[str, Any]) -> DirectRoute | None:
        from judge.llm.direct.replay import through_litellm

        seen: list[httpx.Request] = []

        def record(request: httpx.Request) -> httpx.Response:
            seen.append(request)
            return httpx.Response(200, json=CANNED, request=request)

        try:
            resp = await through_litellm(record, model, PROBE, FORMAT, kwargs)
            provider_model, provider, _, _ = litellm_settings.load().get_llm_provider(
                model, api_base=kwargs.get("api_base")
            )
        except Exception:
            return None
        if len(seen) != 1 or provider not in PROVIDERS:
            return None
        template = template_of(seen[0])
        if template is None:
            return None
        priced = (getattr(resp, "_hidden_params", None) or {}).get("response_cost") is not None
        return DirectRoute(model, provider, provider_model, template, dict(kwargs), priced)
