"""HTTP to the service: one address, one bearer key, retries with backoff, one error type.

:class:`judge.client.Client` and :class:`judge.client.AsyncClient` are built on it, and so is
every other caller of the service (the admin client of the workflows,
:mod:`eval.kit.admin`): 429 and 502/503/504 answers and dropped connections are retried with
exponential backoff (``Retry-After`` honoured); any other error answer, or retries spent,
raises :class:`ServiceError` with the service's status, code, field and message (status 0:
the service could not be reached).

Example::

    from judge.transport import ServiceError, Transport

    http = Transport("http://127.0.0.1:8080", key="admin-key", retries=2)
    try:
        study = http.request("GET", "/v1/studies/pilot/prompts").text
    except ServiceError as exc:
        print(exc.status, exc.message)
    finally:
        http.close()
"""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import TYPE_CHECKING, Any

from judge.errors import JudgeError

if TYPE_CHECKING:  # httpx loads when a transport is made: ``import judge`` stays cheap
    import httpx

RETRY_STATUSES = (429, 502, 503, 504)


class ServiceError(JudgeError):
    """An error answer of the service (after retries); ``status``, ``code``, ``field`` and
    ``message`` come from its ``{"error": {...}}`` body (``status`` 0: unreachable)."""

    def __init__(self, status: int, message: str, code: str | None = None,
                 field: str | None = None):
        where = f" ({field})" if field else ""
        super().__init__(message if status == 0 else f"service answered {status}{where}: {message}")
        self.status, self.code, self.field, self.message = status, code, field, message


def raise_for(resp: httpx.Response) -> None:
    """Raise :class:`ServiceError` for an error answer (status 400 or more)."""
    if resp.status_code < 400:
        return
    try:
        err = resp.json().get("error") or {}
    except (ValueError, AttributeError):
        err = {}
    message = err.get("message") or resp.text[:300] or resp.reason_phrase
    raise ServiceError(resp.status_code, message, err.get("code"), err.get("field"))


class RetryPolicy:
    """Address, key and retry policy shared by the sync and async transports. ``key`` is
    sent as given (None: no ``Authorization`` header)."""

    def __init__(self, url: str, key: str | None = None, *, retries: int = 4,
                 backoff_s: float = 0.5, max_backoff_s: float = 16.0, timeout_s: float = 600.0):
        self.url = url.rstrip("/")
        self.headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.retries, self.backoff_s, self.max_backoff_s = retries, backoff_s, max_backoff_s
        self.timeout_s = timeout_s

    def delay(self, attempt: int, resp: httpx.Response | None) -> float | None:
        """Seconds to wait before retry ``attempt`` (0-based), or None to stop retrying."""
        if attempt >= self.retries or (resp is not None and resp.status_code not in RETRY_STATUSES):
            return None
        wait = min(self.backoff_s * 2**attempt, self.max_backoff_s)
        if resp is not None and (after := resp.headers.get("retry-after", "")).isdigit():
            wait = max(wait, min(float(after), self.max_backoff_s * 4))
        return wait

    def settle(self, attempt: int, resp: httpx.Response | None,
               failure: Exception | None) -> float | httpx.Response:
        """After one try: seconds to wait before the next, or ``resp`` when it is the answer;
        raises :class:`ServiceError` when retries are spent or cannot help."""
        wait = self.delay(attempt, resp)
        if wait is not None:
            return wait
        if resp is None:
            raise ServiceError(0, f"could not connect to {self.url} ({failure}); is the service "
                               "running there (judge serve), and is the address right?")
        raise_for(resp)
        return resp


class Transport(RetryPolicy):
    """Blocking calls to the service with retries (``http`` is the httpx connection pool)."""

    def __init__(self, url: str, key: str | None = None, **policy: Any):
        super().__init__(url, key, **policy)
        import httpx

        self.transport_errors = httpx.TransportError
        self.http = httpx.Client(timeout=httpx.Timeout(self.timeout_s), headers=self.headers)

    def close(self) -> None:
        """Close the connection pool."""
        self.http.close()

    def request(self, method: str, path: str, **kw: Any) -> httpx.Response:
        """One call with retries; raises :class:`ServiceError` on an error answer."""
        for attempt in itertools.count():
            try:
                resp, failure = self.http.request(method, self.url + path, **kw), None
            except self.transport_errors as exc:
                resp, failure = None, exc
            wait = self.settle(attempt, resp, failure)
            if not isinstance(wait, float | int):  # the answer
                return wait
            time.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover


class AsyncTransport(RetryPolicy):
    """The same as :class:`Transport`, as coroutines."""

    def __init__(self, url: str, key: str | None = None, **policy: Any):
        super().__init__(url, key, **policy)
        import httpx

        self.transport_errors = httpx.TransportError
        self.http = httpx.AsyncClient(timeout=httpx.Timeout(self.timeout_s), headers=self.headers)

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self.http.aclose()

    async def request(self, method: str, path: str, **kw: Any) -> httpx.Response:
        """One call with retries; raises :class:`ServiceError` on an error answer."""
        for attempt in itertools.count():
            try:
                resp, failure = await self.http.request(method, self.url + path, **kw), None
            except self.transport_errors as exc:
                resp, failure = None, exc
            wait = self.settle(attempt, resp, failure)
            if not isinstance(wait, float | int):  # the answer
                return wait
            await asyncio.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover
