"""Every HTTP request observed: its id, its pixel ledger, its metrics and its log line.

A plain ASGI middleware (the outermost of the service's own): the request runs in the task
that received it, with no task group or memory streams per request as Starlette's
``BaseHTTPMiddleware`` would add. It

- names the request: the client's ``x-request-id`` when it is 1–64 safe characters, else a
  new one; kept in ``request.state.request_id`` and sent back as ``x-request-id``;
- opens the request's pixel ledger (the per-request and per-process decoding limits of
  :mod:`judge.io.pixel_budget`) around everything the request does;
- when the response starts: counts it (``REQUESTS``, ``LATENCY`` by route template) and logs
  one JSON line (``event``, ``request_id``, ``method``, ``route``, ``status``, ``seconds``).

A request that ends in an unhandled exception is not counted here: the server's error
middleware outside answers it with a 500.

Example::

    app.add_middleware(Observe)  # added last: outermost
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid

from fastapi import FastAPI, Request
from starlette.routing import Match
from starlette.types import Message, Receive, Scope, Send

from api.core.asgi import HttpMiddleware
from api.core.prometheus import LATENCY, REQUESTS
from api.core.state import core_state
from judge.io.pixel_budget import pixel_ledger

log = logging.getLogger("judge.api")
_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


def request_id(given: str | None) -> str:
    """The client's ``x-request-id`` when it is 1–64 safe characters, else a new one.

    Example:
        >>> request_id("abc-1"), len(request_id("<script>")), len(request_id("x" * 65))
        ('abc-1', 16, 16)
    """
    if given and _REQUEST_ID.fullmatch(given):
        return given
    return uuid.uuid4().hex[:16]


def route_label(app: FastAPI, request: Request) -> str:
    """The route template of a request (metrics label); routes FastAPI adds itself (``/docs``,
    ``/openapi.json``, ``/redoc``) by their path; ``unmatched`` for anything else."""
    route = request.scope.get("route")
    if route is not None:
        return getattr(route, "path", "unmatched")
    scope = {**request.scope, "path": request.url.path}
    for candidate in app.router.routes:
        if candidate.matches(scope)[0] == Match.FULL:
            return getattr(candidate, "path", "unmatched")
    return "unmatched"


class Observe(HttpMiddleware):
    """The ASGI middleware described in the module docstring."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope)
        rid = request_id(request.headers.get("x-request-id"))
        request.state.request_id = rid
        start = time.perf_counter()
        service: FastAPI = scope["app"]

        async def observed(message: Message) -> None:
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [
                    (k, v) for k, v in message.get("headers", []) if k.lower() != b"x-request-id"
                ]
                message = {**message, "headers": [*headers, (b"x-request-id", rid.encode())]}
                _record(service, request, status, time.perf_counter() - start, rid)
            await send(message)

        state = core_state(service)
        s = state.settings
        with pixel_ledger(s.max_request_pixels, state.pixel_budget, s.decode_wait_s):
            await self.app(scope, receive, observed)


def _record(app: FastAPI, request: Request, status: int, elapsed: float, rid: str) -> None:
    route = route_label(app, request)
    REQUESTS.labels(route=route, method=request.method, status=status).inc()
    LATENCY.labels(route=route).observe(elapsed)
    line = {"event": "request", "request_id": rid, "method": request.method, "route": route,
            "status": status, "seconds": round(elapsed, 4)}  # fmt: skip
    log.info(json.dumps(line))
