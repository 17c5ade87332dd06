"""Request limits: body size (413, checked while reading) and a per-key rate limit (429).

Example::

    app.add_middleware(BodyLimit, max_bytes=48 * 1024 * 1024)
"""

from __future__ import annotations

import hashlib
import ipaddress
import json

import redis.asyncio as aredis
from fastapi import HTTPException, Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.core.asgi import HttpMiddleware
from api.core.clock import WALL_CLOCK, Clock, seconds_left, window
from api.core.errors import TooLarge, error_body


class BodyLimit(HttpMiddleware):
    """Reject bodies over ``max_bytes`` with 413, without buffering more than that."""

    def __init__(self, app: ASGIApp, max_bytes: int):
        super().__init__(app)
        self.max_bytes = max_bytes

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await _too_large(send, self.max_bytes)
            return
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise TooLarge(self.max_bytes)  # FastAPI re-raises HTTPExceptions
            return message

        async def tracked(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, tracked)
        except TooLarge:
            if not started:
                await _too_large(send, self.max_bytes)


async def _too_large(send: Send, limit: int) -> None:
    body = error_body("too_large", f"the request body is over {limit} bytes", "(body)")
    await send_json(send, 413, body)


async def send_json(send: Send, status: int, body: dict) -> None:
    """Answer with ``body`` as JSON from ASGI middleware (before any route runs)."""
    data = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def _over(limit: int, what: str, clock: Clock) -> HTTPException:
    return HTTPException(
        429,
        error_body("rate_limited", f"over {limit} {what} per minute; retry after the minute"),
        headers={"Retry-After": str(seconds_left(clock, 60))},
    )


def _window_key(kind: str, ident: str, clock: Clock) -> str:
    digest = hashlib.sha256(ident.encode()).hexdigest()[:16]
    return f"judge:rate:{kind}:{digest}:{window(clock, 60)}"


async def charge(
    client: aredis.Redis,
    key: str,
    per_minute: int,
    cost: int = 1,
    bucket: str = "req",
    *,
    clock: Clock = WALL_CLOCK,
) -> None:
    """Spend ``cost`` units of ``key``'s budget in this one-minute window of ``clock`` (counted
    in Redis, shared by all API processes); 429 when that goes over ``per_minute`` (the units
    are then given back, so a refused request costs nothing). ``per_minute`` 0 = no limit.

    Example::

        await charge(redis, "key-1", 600, cost=len(items))     # a batch of N costs N
    """
    if per_minute <= 0 or cost <= 0:
        return
    name = _window_key(bucket, key, clock)
    count = await client.incrby(name, cost)
    if count == cost:
        await client.expire(name, 120)
    if count > per_minute:
        if cost > 1:
            await client.decrby(name, cost)
        raise _over(per_minute, "requests (batch items count one each)", clock)


def client_address(request: Request) -> str:
    """The peer address of the connection (what wrong-key throttling counts by)."""
    return request.client.host if request.client else "unknown"


def network_prefix(address: str) -> str:
    """The network an address belongs to for throttling: its /24 (IPv4) or /64 (IPv6).

    Example:
        >>> network_prefix("203.0.113.7"), network_prefix("2001:db8::1")
        ('203.0.113.0/24', '2001:db8::/64')
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    bits = 24 if ip.version == 4 else 64
    return str(ipaddress.ip_network(f"{ip}/{bits}", strict=False))


async def check_auth_failures(
    client: aredis.Redis, address: str, per_minute: int, *, count: bool, clock: Clock = WALL_CLOCK
) -> None:
    """429 once ``address``, or its network (:func:`network_prefix`: neighbours cannot each
    get a fresh allowance), sent more than ``per_minute`` wrong or missing keys this minute;
    ``count=True`` records one more failure for both."""
    if per_minute <= 0:
        return
    over = []
    for ident, what in ((address, "this address"), (network_prefix(address), "its network")):
        name = _window_key("authfail", ident, clock)
        if count:
            seen = await client.incr(name)
            if seen == 1:
                await client.expire(name, 120)
        else:
            seen = int(await client.get(name) or 0)
        if seen > per_minute:
            over.append(what)
    if over:
        raise _over(per_minute, f"failed authentications from {over[0]}", clock)
