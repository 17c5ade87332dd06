"""What every fake provider shares: a loopback aiohttp server in a background thread, scripted
replies, fault injection, latency, a server-side rate limit, records of the calls and the
``/_admin`` endpoints.

A provider *dialect* subclasses :class:`LoopbackFake` and supplies three things:

- :meth:`LoopbackFake._add_routes` — its endpoints, each built with :meth:`_endpoint` from a
  ``parse`` function (request + JSON body → the canonical body, see
  :mod:`tests.fakes.provider.wire`, and the images it decoded; raises
  :class:`~tests.fakes.provider.wire.WireError` for anything the real API would refuse)
  and a ``render`` function (canonical body, wire body, content, finish → response JSON);
- :meth:`LoopbackFake._error` — the provider's error body for a status;
- :attr:`LoopbackFake.base_path` — what follows ``http://HOST:PORT`` in :attr:`base_url`.

The answer itself always comes from the shared :class:`~tests.fakes.provider.responder.Responder`
and the fault from the shared :class:`~tests.fakes.provider.faults.FaultInjector`.

Example::

    with AnthropicFake() as fake:            # any dialect: the same scripting and faults
        fake.on("rate the image", {"score": 4})
        fake.fail_next(["429", "529"])
        fake.calls, fake.fault_counts, fake.wire_calls[0].images
"""

from __future__ import annotations

import asyncio
import json
import random
import socket
import threading
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from itertools import count
from typing import ClassVar, Self

import orjson
from aiohttp import web

from tests.fakes.provider.admin import AdminMixin
from tests.fakes.provider.faults import (
    FAULT_KINDS,
    GARBAGE_TEXT,
    HTTP_FAULTS,
    REFUSAL_TEXT,
    FaultInjector,
)
from tests.fakes.provider.faults import truncate as truncate_text
from tests.fakes.provider.gate import Gate
from tests.fakes.provider.ratelimit import RateLimit
from tests.fakes.provider.responder import Match, Reply, Responder, ScriptRule
from tests.fakes.provider.wire import Body, ImageInfo, WireError

_SHUTDOWN_S = 0.5

Parse = Callable[[web.Request, Body], tuple[Body, list[ImageInfo]]]
Render = Callable[[Body, Body, str, str], Body]
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Answer = Callable[[Body, Body], Awaitable[web.StreamResponse]]


@dataclass
class WireCall:
    """One accepted call: the path, the body as sent, its canonical form and decoded images."""

    path: str
    body: Body
    canonical: Body
    images: list[ImageInfo] = field(default_factory=list)


class LoopbackFake(AdminMixin):
    """Base of the fake providers; see the module docstring for what a dialect adds."""

    api: ClassVar[str] = "base"
    base_path: ClassVar[str] = ""

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
        rate_limit: float = 0.0,
        keep_calls: int | None = None,
    ) -> None:
        self.host, self.latency, self.jitter, self.hang_s = host, latency, jitter, hang_s
        #: server-side requests-per-second limit of chat calls (:mod:`.ratelimit`; 0: none)
        self.rate_limit = RateLimit(rate_limit)
        self.responder = Responder()
        self.gate = Gate()
        self.faults = FaultInjector(fault_rate, fault_kinds, seed)
        self._requested_port = port
        self._port: int | None = None
        self._seed = seed
        self._jitter_rng = random.Random(seed)
        self._ids = count(1)
        self._lock = threading.Lock()
        #: the accepted calls' records: all, or the last ``keep_calls`` (a long benchmark's
        #: request bodies would otherwise pile up); :attr:`calls` counts every one
        self._calls: deque[WireCall] = deque(maxlen=keep_calls)
        self._count = 0
        self._rejected: list[tuple[str, str]] = []
        self._in_flight = 0
        self._max_in_flight = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None

    # -- what a dialect supplies ----------------------------------------------------------------
    def _add_routes(self, app: web.Application) -> None:
        raise NotImplementedError  # pragma: no cover - every dialect overrides it

    def _error(self, status: int, kind: str, message: str) -> web.Response:
        """The provider's error response; ``kind`` is the OpenAI-style error type."""
        raise NotImplementedError  # pragma: no cover - every dialect overrides it

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> Self:
        """Bind the socket and serve from a daemon thread with its own event loop."""
        if self._thread is not None:
            raise RuntimeError(f"{type(self).__name__} already started")
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self._requested_port))
        self._port = sock.getsockname()[1]
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name=f"fake-{self.api}-{self._port}", daemon=True
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
            raise RuntimeError(f"{type(self).__name__} not started")
        return self._port

    @property
    def base_url(self) -> str:
        """The address to pass as litellm's ``api_base``."""
        return f"http://{self.host}:{self.port}{self.base_path}"

    # -- scripting, faults, records ----------------------------------------------------------
    def on(self, match: Match, reply: Reply, times: int | None = None) -> ScriptRule:
        """Script a reply (see :meth:`Responder.on`); rules see the canonical body."""
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
    def wire_calls(self) -> list[WireCall]:
        """The accepted calls so far (the last ``keep_calls`` when that is set), oldest first."""
        with self._lock:
            return list(self._calls)

    @property
    def requests(self) -> list[Body]:
        """Parsed JSON bodies of all accepted calls so far (in the provider's format)."""
        return [c.body for c in self.wire_calls]

    @property
    def rejected(self) -> list[tuple[str, str]]:
        """``(path, reason)`` of every call refused as not in the provider's format."""
        with self._lock:
            return list(self._rejected)

    @property
    def calls(self) -> int:
        """How many calls were accepted (since the last reset)."""
        with self._lock:
            return self._count

    @property
    def in_flight(self) -> int:
        """How many calls are being served now (held at the :attr:`gate` included)."""
        with self._lock:
            return self._in_flight

    @property
    def max_in_flight(self) -> int:
        """The most calls served at the same moment since the last reset."""
        with self._lock:
            return self._max_in_flight

    def reset(self) -> None:
        """Forget recorded calls, scripted replies and faults (rate back to 0); open the gate."""
        self.gate.open()
        with self._lock:
            self._calls.clear()
            self._count = 0
            self._rejected.clear()
            self._max_in_flight = self._in_flight
        self.responder.reset()
        self.faults.reset()
        self.rate_limit.reset()
        self._jitter_rng = random.Random(self._seed)

    def next_id(self) -> int:
        """A fresh number for response ids."""
        return next(self._ids)

    # -- HTTP --------------------------------------------------------------------------------
    async def _serve(self, sock: socket.socket) -> None:
        app = web.Application(client_max_size=64 * 1024**2)
        self._add_routes(app)
        self._add_admin_routes(app)
        runner = web.AppRunner(
            app, shutdown_timeout=_SHUTDOWN_S, handler_cancellation=True, access_log=None
        )
        await runner.setup()
        await web.SockSite(runner, sock).start()
        self._runner = runner

    def _endpoint(
        self,
        parse: Parse,
        render: Render,
        answer: Answer | None = None,
        read: Callable[[web.Request], Awaitable[object]] | None = None,
    ) -> Handler:
        """A handler: JSON body → ``parse`` → record → fault/latency → ``render``
        (or, for an endpoint that is not a chat reply, → ``answer(canonical, body)``).
        ``read`` turns another kind of body (multipart forms) into a dict; a ``WireError`` it
        raises is the 400 answer."""

        async def handler(request: web.Request) -> web.StreamResponse:
            arrived = asyncio.get_running_loop().time()
            try:
                body = await (read or _json_body)(request)
            except WireError as exc:
                return self._refuse(request.path, exc)
            except ValueError:
                return self._refuse(request.path, WireError("request body is not valid JSON"))
            if not isinstance(body, dict):
                return self._refuse(request.path, WireError("request body must be a JSON object"))
            try:
                canonical, images = parse(request, body)
            except WireError as exc:
                return self._refuse(request.path, exc)
            verdict = self.rate_limit.take() if self.rate_limit.active else None
            if verdict is not None and not verdict.allowed:  # refused at once, not recorded
                refusal = self._error(429, "rate_limit_error", "Rate limit reached for requests.")
                refusal.headers.update(verdict.headers())
                return refusal
            call = WireCall(request.path, body, canonical, images)
            with self._lock:
                self._calls.append(call)
                self._count += 1
                self._in_flight += 1
                self._max_in_flight = max(self._max_in_flight, self._in_flight)
            try:
                await self.gate.pass_through(_credential(request))
                if answer is not None:
                    response = await answer(canonical, body)
                else:
                    response = await self._answer(canonical, body, render, arrived)
                if verdict is not None:
                    response.headers.update(verdict.headers())
                return response
            finally:
                with self._lock:
                    self._in_flight -= 1

        return handler

    def _refuse(self, path: str, exc: WireError) -> web.Response:
        with self._lock:
            self._rejected.append((path, exc.message))
        kind = "authentication_error" if exc.status in (401, 403) else "invalid_request_error"
        if exc.status == 404:
            kind = "not_found_error"
        return self._error(exc.status, kind, exc.message)

    async def _fault_and_delay(
        self, arrived: float | None = None
    ) -> tuple[str | None, web.Response | None]:
        """Draw the call's fault, wait the latency (and the hang of ``timeout``); an HTTP
        fault comes back as the error response to send.

        With ``arrived`` (the loop time the request came in) the latency counts from the
        arrival: the fake's own parsing and image decoding (serial, in one thread) is part of
        it, as a real provider's is, instead of queueing concurrent calls behind each other."""
        fault = self.faults.draw()  # decided on arrival: deterministic order for a given seed
        delay = self.latency + self._jitter_rng.uniform(-self.jitter, self.jitter)
        if arrived is not None:
            delay -= asyncio.get_running_loop().time() - arrived
        await asyncio.sleep(max(0.0, delay))
        if fault in HTTP_FAULTS:
            status, kind, message = HTTP_FAULTS[fault]
            response = self._error(status, kind, message)
            if status == 429:
                response.headers["Retry-After"] = "0"
            return fault, response
        if fault == "timeout":
            await asyncio.sleep(self.hang_s)
        return fault, None

    async def _answer(
        self, canonical: Body, body: Body, render: Render, arrived: float | None = None
    ) -> web.Response:
        fault, error = await self._fault_and_delay(arrived)
        if error is not None:
            return error
        finish = "stop"
        if fault in ("garbage", "corrupt", "oversized"):
            content = GARBAGE_TEXT
        elif fault == "refusal":
            content = REFUSAL_TEXT
        elif fault in ("blocked", "empty"):
            content, finish = "", "content_filter" if fault == "blocked" else "stop"
        elif fault == "truncated":
            content = truncate_text(self.responder.respond(canonical, consume=False))
            finish = "length"
        else:
            content = self.responder.respond(canonical)
        return web.json_response(render(canonical, body, content, finish))


async def _json_body(request: web.Request) -> object:
    """The request's JSON. orjson reads the usual body several times faster than ``json``
    (a chat call carries its image as a long base64 string); whatever orjson refuses (huge
    integers, lone surrogates, a BOM, ...) is decided by ``json`` as before."""
    try:
        return orjson.loads(await request.read())
    except orjson.JSONDecodeError:
        return json.loads(await request.text())


def _credential(request: web.Request) -> str:
    """Whose call this is, as the client sent it (any dialect's key header)."""
    for header in ("Authorization", "x-api-key", "x-goog-api-key"):
        if value := request.headers.get(header):
            return value.removeprefix("Bearer ").strip()
    return ""
