"""Refuse requests a web page could forge: wrong ``Host`` names, cross-site writes, and JSON
sent under a content type a browser may send without asking (issue 22, finding 4).

Three checks, before any route runs:

- **Host.** A service without API keys answers only requests whose ``Host`` is a loopback
  name (``127.0.0.1``, ``localhost``, ``::1``) or one of ``JUDGE_SERVE_ALLOWED_HOSTS``: a page on
  ``rebind.evil.example`` that re-points its DNS to 127.0.0.1 (DNS rebinding) is refused
  (400 ``host_not_allowed``). With keys, ``JUDGE_SERVE_ALLOWED_HOSTS`` (when set) is enforced too.
- **Origin.** A write (POST, PUT, PATCH, DELETE) that carries an ``Origin`` must come from
  the same host it is sent to (403 ``cross_origin``). API clients send no Origin.
- **Content type.** A write under ``/v1/`` with a body must say it is JSON
  (``application/json`` or ``*+json``); ``POST /v1/batches`` also takes JSONL and multipart
  uploads. Anything else (``text/plain``, forms, no type at all: what a cross-site page can
  send without a CORS preflight) is 415 ``unsupported_media_type``.

Example::

    app.add_middleware(RequestGuard, settings=settings)
    host_allowed(ServiceSettings(), "localhost:8080")      # True
    host_allowed(ServiceSettings(), "rebind.evil.example")  # False
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from api.core.asgi import HttpMiddleware
from api.core.errors import error_body
from api.core.limits import send_json
from api.core.settings import ServiceSettings

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
JSONL_TYPES = frozenset(
    {
        "application/x-ndjson",
        "application/jsonl",
        "application/x-jsonlines",
        "application/json-lines",
    }
)
UPLOAD_ROUTES = frozenset({"/v1/batches"})


def hostname(host_header: str) -> str:
    """The name part of a ``Host`` header (port and IPv6 brackets dropped), lower-case.

    Example:
        >>> hostname("[::1]:8080"), hostname("LocalHost:80"), hostname("example.org")
        ('::1', 'localhost', 'example.org')
    """
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


def host_allowed(settings: ServiceSettings, host_header: str | None) -> bool:
    """True when a request to ``host_header`` may be served (see the module docstring)."""
    allowed = set(settings.allowed_hosts)
    if "*" in allowed:
        return True
    if not settings.auth_required:
        allowed |= LOOPBACK_NAMES
    elif not allowed:
        return True
    return host_header is not None and hostname(host_header) in allowed


def same_origin(origin: str | None, host_header: str | None) -> bool:
    """True when an ``Origin`` header names the host a request was sent to (or is absent).

    Example:
        >>> same_origin(None, "a:1"), same_origin("http://a:1", "a:1"), same_origin("null", "a:1")
        (True, True, False)
    """
    if origin is None:
        return True
    return origin != "null" and urlsplit(origin).netloc.lower() == (host_header or "").lower()


def json_content_type(path: str, content_type: str) -> bool:
    """True when a ``/v1`` write's content type is one its route reads as JSON.

    Example:
        >>> json_content_type("/v1/score", "application/json; charset=utf-8")
        True
        >>> json_content_type("/v1/score", "text/plain"), json_content_type("/v1/score", "")
        (False, False)
        >>> json_content_type("/v1/batches", "application/x-ndjson")
        True
    """
    kind = content_type.split(";")[0].strip().lower()
    if kind == "application/json" or (kind.startswith("application/") and kind.endswith("+json")):
        return True
    upload = path.rstrip("/") in UPLOAD_ROUTES
    return upload and (kind in JSONL_TYPES or kind == "multipart/form-data")


def accepted_types(path: str) -> str:
    """What a ``/v1`` write takes, in words (the 415 message).

    Example:
        >>> accepted_types("/v1/score")
        "send the body as JSON with 'Content-Type: application/json'"
        >>> "application/x-ndjson" in accepted_types("/v1/batches")
        True
    """
    if path.rstrip("/") in UPLOAD_ROUTES:
        return (
            "send the body as JSON ('Content-Type: application/json'), JSON lines "
            "('application/x-ndjson') or a multipart upload ('multipart/form-data', field "
            "'file')"
        )
    return "send the body as JSON with 'Content-Type: application/json'"


class RequestGuard(HttpMiddleware):
    """ASGI middleware applying :func:`host_allowed`, :func:`same_origin` and
    :func:`json_content_type` to every HTTP request."""

    def __init__(self, app: ASGIApp, settings: ServiceSettings):
        super().__init__(app)
        self.settings = settings

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = self.refusal(scope)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        await send_json(send, *refusal)

    def refusal(self, scope: Scope) -> tuple[int, dict] | None:
        """The status and error body refusing this request, or None to serve it."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host")
        if not host_allowed(self.settings, host):
            message = (
                f"this service does not answer for host {(host or '')[:100]!r}; use a loopback "
                "name (127.0.0.1, localhost) or list the name in JUDGE_SERVE_ALLOWED_HOSTS"
            )
            return 400, error_body("host_not_allowed", message, "Host")
        if scope["method"] not in WRITES:
            return None
        if not same_origin(headers.get("origin"), host):
            message = "cross-site requests are refused: send this from the service's own pages"
            return 403, error_body("cross_origin", message, "Origin")
        path: str = scope["path"]
        has_body = headers.get("content-length", "0") != "0" or "transfer-encoding" in headers
        if path.startswith("/v1/") and has_body:
            ctype = headers.get("content-type", "")
            if not json_content_type(path, ctype):
                message = f"{accepted_types(path)} (got {ctype[:80]!r})"
                return 415, error_body("unsupported_media_type", message, "content-type")
        return None
