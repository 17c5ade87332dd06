"""The base of the service's pure ASGI middleware: HTTP requests are handled, everything else
(the lifespan, websockets) passes through untouched.

Example::

    class Stamp(HttpMiddleware):
        async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
            await self.app(scope, receive, send)

    app.add_middleware(Stamp)
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from starlette.types import ASGIApp, Receive, Scope, Send


class HttpMiddleware(ABC):
    """ASGI middleware over ``app`` that sees only HTTP requests (:meth:`handle`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.handle(scope, receive, send)

    @abstractmethod
    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one HTTP request (call ``self.app`` to pass it on)."""
