"""The fake OpenAI-compatible provider: an aiohttp server on loopback, in a background thread.

Endpoints:

- ``POST /v1/chat/completions`` — OpenAI chat-completions JSON; the content comes from the
  :class:`~judge.fake_provider.responder.Responder` (scripted reply or schema-valid default),
  after ``latency`` (± ``jitter``) seconds of ``asyncio.sleep``, so concurrent calls overlap.
  ``stream: true`` and bodies that are not a JSON object with ``messages`` get HTTP 400.
- ``GET /v1/models`` — one model, ``fake``.
- ``GET /_admin/stats``, ``POST /_admin/config``, ``POST /_admin/reset`` — for a provider that
  runs in another process (see :mod:`judge.fake_provider.process`).

Example::

    with FakeProvider(latency=0.05) as provider:
        provider.on("checklist", {"items": []}, times=1)
        provider.fail_next(["429"])
        resp = await litellm.acompletion(model="openai/fake", api_base=provider.base_url,
                                         api_key="x", messages=[...])
        assert provider.calls == 1 and provider.fault_counts == {"429": 1}
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import socket
import threading
import time
from collections.abc import Iterable
from itertools import count
from typing import Any, Self

from aiohttp import web

from judge.fake_provider.faults import (
    FAULT_KINDS,
    GARBAGE_TEXT,
    HTTP_FAULTS,
    FaultInjector,
    error_json,
    truncate,
)
from judge.fake_provider.responder import Match, Reply, Responder, ScriptRule, messages_text

_SHUTDOWN_S = 0.5
_CONFIG_KEYS = {"latency", "jitter", "hang_s", "fault_rate", "fault_kinds", "seed"}


def _bad_request(message: str) -> web.Response:
    return web.json_response(error_json(message, "invalid_request_error"), status=400)


def _tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))


class FakeProvider:
    """OpenAI-compatible fake on loopback; records requests, scripts replies, injects faults."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        latency: float = 0.0,
        jitter: float = 0.0,
        hang_s: float = 30.0,
        fault_rate: float = 0.0,
        fault_kinds: Iterable[str] = FAULT_KINDS,
        seed: int = 0,
    ) -> None:
        self.host, self.latency, self.jitter, self.hang_s = host, latency, jitter, hang_s
        self.responder = Responder()
        self.faults = FaultInjector(fault_rate, fault_kinds, seed)
        self._requested_port = port
        self._port: int | None = None
        self._seed = seed
        self._jitter_rng = random.Random(seed)
        self._ids = count(1)
        self._lock = threading.Lock()
        self._requests: list[dict[str, Any]] = []
        self._in_flight = 0
        self._max_in_flight = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> Self:
        """Bind the socket and serve from a daemon thread with its own event loop."""
        if self._thread is not None:
            raise RuntimeError("FakeProvider already started")
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self._requested_port))
        self._port = sock.getsockname()[1]
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name=f"fake-provider-{self._port}", daemon=True
        )
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._serve(sock), self._loop).result(timeout=10)
        return self

    def stop(self) -> None:
        """Stop serving (in-flight calls are cancelled) and join the thread."""
        loop, thread, runner = self._loop, self._thread, self._runner
        if loop is None or thread is None:
            return
        if runner is not None:
            asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(_SHUTDOWN_S + 10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()
        self._loop = self._thread = self._runner = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("FakeProvider not started")
        return self._port

    @property
    def base_url(self) -> str:
        """``http://HOST:PORT/v1`` — pass as ``api_base`` to litellm."""
        return f"http://{self.host}:{self.port}/v1"

    # -- scripting, faults, records ----------------------------------------------------------
    def on(self, match: Match, reply: Reply, times: int | None = None) -> ScriptRule:
        """Script a reply (see :meth:`Responder.on`); rules are tried in registration order."""
        return self.responder.on(match, reply, times)

    def fail_next(self, kinds: Iterable[str]) -> None:
        """Make the next calls fail with these fault kinds, in order."""
        self.faults.fail_next(kinds)

    def set_fault_rate(
        self, rate: float, kinds: Iterable[str] = FAULT_KINDS, seed: int = 0
    ) -> None:
        """Fault each call with probability ``rate``, kind uniform over ``kinds``."""
        self.faults.set_rate(rate, kinds, seed)

    @property
    def fault_counts(self) -> dict[str, int]:
        return self.faults.counts

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Parsed JSON bodies of all chat-completions calls so far, oldest first."""
        with self._lock:
            return list(self._requests)

    @property
    def calls(self) -> int:
        with self._lock:
            return len(self._requests)

    @property
    def max_in_flight(self) -> int:
        """The most chat calls served at the same moment since the last reset."""
        with self._lock:
            return self._max_in_flight

    def reset(self) -> None:
        """Forget recorded requests, scripted replies and faults (rate back to 0)."""
        with self._lock:
            self._requests.clear()
            self._max_in_flight = self._in_flight
        self.responder.reset()
        self.faults.reset()
        self._jitter_rng = random.Random(self._seed)

    def config(self) -> dict[str, Any]:
        """Current latency, jitter, hang and fault settings."""
        return {
            "latency": self.latency,
            "jitter": self.jitter,
            "hang_s": self.hang_s,
            **self.faults.settings,
        }

    def configure(self, **changes: Any) -> dict[str, Any]:
        """Change any of latency, jitter, hang_s, fault_rate, fault_kinds, seed; return config."""
        unknown = set(changes) - _CONFIG_KEYS
        if unknown:
            raise ValueError(f"unknown setting(s) {sorted(unknown)}; known: {sorted(_CONFIG_KEYS)}")
        for key in ("latency", "jitter", "hang_s"):
            if key in changes:
                setattr(self, key, float(changes[key]))
        if {"fault_rate", "fault_kinds", "seed"} & set(changes):
            current = self.faults.settings
            kinds = changes.get("fault_kinds", current["fault_kinds"])
            if isinstance(kinds, str):
                kinds = [k.strip() for k in kinds.split(",") if k.strip()]
            self._seed = int(changes.get("seed", current["seed"]))
            rate = float(changes.get("fault_rate", current["fault_rate"]))
            self.faults.set_rate(rate, kinds, self._seed)
        return self.config()

    # -- HTTP --------------------------------------------------------------------------------
    async def _serve(self, sock: socket.socket) -> None:
        app = web.Application(client_max_size=64 * 1024**2)
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_get("/v1/models", self._models)
        app.router.add_get("/_admin/stats", self._stats)
        app.router.add_post("/_admin/config", self._config)
        app.router.add_post("/_admin/reset", self._reset)
        runner = web.AppRunner(
            app, shutdown_timeout=_SHUTDOWN_S, handler_cancellation=True, access_log=None
        )
        await runner.setup()
        await web.SockSite(runner, sock).start()
        self._runner = runner

    async def _chat(self, request: web.Request) -> web.Response:
        try:
            body = json.loads(await request.text())
        except ValueError:
            return _bad_request("request body is not valid JSON")
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return _bad_request("request body must be a JSON object with a 'messages' list")
        with self._lock:
            self._requests.append(body)
        if body.get("stream"):
            return _bad_request("stream=true is not supported by the fake provider")
        with self._lock:
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
        try:
            return await self._answer(body)
        finally:
            with self._lock:
                self._in_flight -= 1

    async def _answer(self, body: dict[str, Any]) -> web.Response:
        fault = self.faults.draw()  # decided on arrival: deterministic order for a given seed
        delay = self.latency + self._jitter_rng.uniform(-self.jitter, self.jitter)
        await asyncio.sleep(max(0.0, delay))
        if fault in HTTP_FAULTS:
            status, kind, message = HTTP_FAULTS[fault]
            headers = {"Retry-After": "0"} if status == 429 else None
            return web.json_response(error_json(message, kind), status=status, headers=headers)
        if fault == "timeout":
            await asyncio.sleep(self.hang_s)
        finish = "stop"
        if fault == "garbage":
            content = GARBAGE_TEXT
        elif fault == "truncated":
            content, finish = truncate(self.responder.respond(body, consume=False)), "length"
        else:
            content = self.responder.respond(body)
        return web.json_response(self._completion(body, content, finish))

    def _completion(self, body: dict[str, Any], content: str, finish: str) -> dict[str, Any]:
        images = sum(
            1
            for m in body["messages"]
            if isinstance(m, dict) and isinstance(m.get("content"), list)
            for p in m["content"]
            if isinstance(p, dict) and p.get("type") == "image_url"
        )
        prompt, completion = _tokens(messages_text(body)) + 85 * images, _tokens(content)
        return {
            "id": f"chatcmpl-fake-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(body.get("model", "fake")),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": finish,
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }

    async def _models(self, request: web.Request) -> web.Response:
        model = {"id": "fake", "object": "model", "created": 0, "owned_by": "fake-provider"}
        return web.json_response({"object": "list", "data": [model]})

    async def _stats(self, request: web.Request) -> web.Response:
        stats = {"calls": self.calls, "fault_counts": self.fault_counts, "config": self.config()}
        return web.json_response(stats)

    async def _config(self, request: web.Request) -> web.Response:
        try:
            changes = json.loads(await request.text() or "{}")
            if not isinstance(changes, dict):
                raise ValueError("config body must be a JSON object")
            return web.json_response(self.configure(**changes))
        except (ValueError, TypeError) as exc:
            return _bad_request(str(exc))

    async def _reset(self, request: web.Request) -> web.Response:
        self.reset()
        return web.json_response({"ok": True})
