"""The annotator's hot routes on a lean ASGI path: ``GET /v1/label/{token}/next``, ``POST
/v1/label/{token}/answers`` and ``GET /v1/campaign-images/{cid}/{alias}``.

A campaign at crowd scale spends most of its service CPU on these three. Through FastAPI each
pays for matching the path against every route, resolving dependencies and encoding the
answer; here they run the same functions as the routes (:func:`api.campaigns.routes.next_payload`,
:func:`~api.campaigns.routes.answer_payload`, :func:`~api.campaigns.routes.image_parts`)
straight from the ASGI call. The middleware sits inside the service's own (request id,
metrics and access log, host and origin checks, body limit), so those still apply; it names
the route in the scope, as FastAPI does, for the metrics label.

Anything unusual goes on to FastAPI unchanged, so its answers stay the reference: a token
this process has not yet seen live (the throttled lookup of unknown secrets runs there), a
query other than a valid ``lang``, a body that does not parse as an answer (the request is
replayed with its body).

Example::

    app.add_middleware(LabelFast)  # added first: inside the service's own middleware
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from urllib.parse import parse_qsl

from fastapi import HTTPException, Request
from pydantic import ValidationError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.campaigns.routes import (
    LANG,
    NO_IMAGE,
    answer_payload,
    image_parts,
    next_payload,
    store_of,
)
from api.core.errors import error_body
from eval.campaigns.models import Answer
from eval.campaigns.record import CampaignRecord
from judge.errors import InputError

_JSON = (b"content-type", b"application/json")
_NO_STORE = (b"cache-control", b"no-store")
TEMPLATES = {
    "next": "/v1/label/{token}/next",
    "answers": "/v1/label/{token}/answers",
    "image": "/v1/campaign-images/{cid}/{key}",
}
"""The route templates served here (FastAPI serves the same paths when this passes on)."""


@dataclass(frozen=True)
class Served:
    """What ``scope["route"]`` holds for a request answered here: its template (the metrics
    label of :func:`api.core.observe.route_label`)."""

    path: str


ROUTES = {name: Served(path) for name, path in TEMPLATES.items()}


async def _send(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    head = [*headers, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})


async def _send_error(send: Send, exc: HTTPException) -> None:
    extra = [(k.lower().encode(), v.encode()) for k, v in (exc.headers or {}).items()]
    await _send(send, exc.status_code, json.dumps(exc.detail).encode(), [_JSON, *extra])


class LabelFast:
    """The ASGI middleware described in the module docstring."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope["path"] if scope["type"] == "http" else ""
        parts = path.split("/")
        method = scope.get("method", "")
        if len(parts) == 5 and parts[1] == "v1" and parts[2] == "label":
            if parts[4] == "next" and method == "GET":
                if await self._next(scope, send, parts[3]):
                    return
            elif parts[4] == "answers" and method == "POST":
                await self._answer(scope, receive, send, parts[3])
                return
        elif parts[1:3] == ["v1", "campaign-images"] and len(parts) == 5 and method == "GET":
            await self._image(scope, send, parts[3], parts[4])
            return
        await self.app(scope, receive, send)

    async def _owner(self, request: Request, token: str) -> tuple[CampaignRecord, str] | None:
        """The campaign and annotator of a token this process has seen live, or None."""
        store = store_of(request)
        known = store.known_owner(token)
        if known is None:
            return None
        rec = await store.record(known.campaign, fresh_status=False)
        return (rec, known.annotator) if rec is not None else None

    async def _next(self, scope: Scope, send: Send, token: str) -> bool:
        """Serve ``next``; False to let FastAPI answer instead (nothing sent)."""
        query = parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True)
        if any(k != "lang" or not LANG.fullmatch(v) for k, v in query):
            return False
        request = Request(scope)
        owner = await self._owner(request, token)
        if owner is None:
            return False
        scope["route"] = ROUTES["next"]
        try:
            payload = await next_payload(request, *owner, token, query[-1][1] if query else None)
        except HTTPException as exc:
            await _send_error(send, exc)
            return True
        if payload is None:
            await send({"type": "http.response.start", "status": 204, "headers": [_NO_STORE]})
            await send({"type": "http.response.body", "body": b""})
            return True
        await _send(send, 200, json.dumps(payload).encode(), [_JSON, _NO_STORE])
        return True

    async def _answer(self, scope: Scope, receive: Receive, send: Send, token: str) -> None:
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        data = b"".join(chunks)
        request = Request(scope)
        owner = await self._owner(request, token)
        try:
            body = Answer.model_validate_json(data) if owner is not None else None
        except ValidationError:
            body = None
        if owner is None or body is None:  # FastAPI answers (and words the 400) as it does
            await self.app(scope, _replay(data, receive), send)
            return
        scope["route"] = ROUTES["answers"]
        try:
            result = await answer_payload(request, *owner, token, body)
        except HTTPException as exc:
            await _send_error(send, exc)
            return
        except InputError as exc:
            detail = error_body("invalid_input", str(exc), exc.field)
            await _send(send, 400, json.dumps(detail).encode(), [_JSON])
            return
        await _send(send, 200, json.dumps(result).encode(), [_JSON])

    async def _image(self, scope: Scope, send: Send, cid: str, key: str) -> None:
        scope["route"] = ROUTES["image"]
        status, headers, data = await image_parts(Request(scope), cid, key, public=True)
        if status == 404:
            await _send_error(send, HTTPException(404, NO_IMAGE))
            return
        raw = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
        if status == 304:
            await send({"type": "http.response.start", "status": 304, "headers": raw})
            await send({"type": "http.response.body", "body": b""})
            return
        await _send(send, status, data, raw)


def _replay(data: bytes, rest: Receive) -> Receive:
    """A ``receive`` that hands over an already read body once, then what the server's
    ``rest`` says (a disconnect)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": data, "more_body": False}
        return await rest()

    return receive
