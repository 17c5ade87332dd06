"""Request limits: body size (413, checked while reading) and a per-key rate limit (429).

Example::

    app.add_middleware(BodyLimit, max_bytes=48 * 1024 * 1024)
"""

from __future__ import annotations

import hashlib
import json
import time

import redis.asyncio as aredis
from fastapi import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import TooLarge, error_body


class BodyLimit:
    """Reject bodies over ``max_bytes`` with 413, without buffering more than that."""

    def __init__(self, app: ASGIApp, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
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
    body = json.dumps(
        error_body("too_large", f"the request body is over {limit} bytes", "(body)")
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def check_rate(client: aredis.Redis, key: str, per_minute: int) -> None:
    """Fixed one-minute windows per API key, counted in Redis (shared by all API processes)."""
    if per_minute <= 0:
        return
    window = int(time.time() // 60)
    name = f"judge:rate:{hashlib.sha256(key.encode()).hexdigest()[:16]}:{window}"
    count = await client.incr(name)
    if count == 1:
        await client.expire(name, 120)
    if count > per_minute:
        raise HTTPException(
            429,
            error_body(
                "rate_limited",
                f"over {per_minute} requests per minute for this key; retry after the minute",
            ),
            headers={"Retry-After": str(60 - int(time.time()) % 60)},
        )
