"""The direct route's HTTP client: one pooled aiohttp session per event loop, used the way
litellm's own aiohttp transport uses its session.

As litellm's transport does, requests go out with no automatic decompression and no
redirects, with the call's timeout as connect, pool and per-read timeouts (not a total), and
a failure without an answer is named by litellm's own table of aiohttp errors
(``AIOHTTP_EXC_MAP``: a timeout, a dropped or refused connection, ...). A refused or reset
connection is tried once more, as litellm's HTTP handler does; the failure that remains is a
:class:`TransportFailure`, which the route hands to litellm as what its own client met.

A session belongs to the loop it was made on; it is closed when the loop shuts down (an
async generator parked on the loop closes it: ``asyncio.run`` and uvicorn finalise them on
the way out), or by :func:`close_session`.

Example::

    status, headers, body = await post(url, {"Authorization": "Bearer k"}, b"{}", 60.0)
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Mapping

import aiohttp
import httpx
from litellm.llms.custom_httpx.aiohttp_transport import AIOHTTP_EXC_MAP

_Held = tuple[aiohttp.ClientSession, AsyncGenerator[None, None]]
#: each running loop's session, and the parked generator that closes it with the loop
_SESSIONS: dict[asyncio.AbstractEventLoop, _Held] = {}
#: the failures litellm's HTTP handler tries once more on a new connection
_RESENT = (httpx.RemoteProtocolError, httpx.ConnectError)


class TransportFailure(Exception):
    """No HTTP answer. ``error`` is what litellm's client would have raised (an httpx
    error from litellm's table, or the original when the table has none); the original is
    the cause."""

    def __init__(self, error: BaseException):
        super().__init__(str(error))
        self.error = error


async def _closing(
    loop: asyncio.AbstractEventLoop, session: aiohttp.ClientSession
) -> AsyncGenerator[None, None]:
    try:
        yield
    finally:
        if _SESSIONS.get(loop, (None,))[0] is session:
            del _SESSIONS[loop]
        await session.close()


async def session() -> aiohttp.ClientSession:
    """This loop's session (made on first use)."""
    loop = asyncio.get_running_loop()
    held = _SESSIONS.get(loop)
    if held is not None and not held[0].closed:
        return held[0]
    made = aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=0, ttl_dns_cache=300),
        cookie_jar=aiohttp.DummyCookieJar(),
        auto_decompress=False,  # litellm's transport hands the body to httpx as it came
        trust_env=False,  # the route is only taken with no proxy configured
    )
    closer = _closing(loop, made)
    await closer.__anext__()  # parked: the loop's shutdown_asyncgens closes the session
    _SESSIONS[loop] = (made, closer)
    return made


async def close_session() -> None:
    """Close this loop's session now (for runners that never finalise their loop's async
    generators, such as arq's worker)."""
    held = _SESSIONS.pop(asyncio.get_running_loop(), None)
    if held is not None:
        await held[0].close()
        await held[1].aclose()


def litellm_error(exc: BaseException) -> BaseException:
    """What litellm's aiohttp transport raises for ``exc`` (the most specific entry of its
    table), or ``exc`` itself when the table has none."""
    mapped: type[Exception] | None = None
    for source, target in AIOHTTP_EXC_MAP.items():
        if isinstance(exc, source) and (mapped is None or issubclass(target, mapped)):
            mapped = target
    if mapped is None:
        return exc
    error = mapped(str(exc))
    error.__cause__ = exc
    return error


async def post(
    url: str, headers: Mapping[str, str], body: bytes, timeout_s: float
) -> tuple[int, Mapping[str, str], bytes]:
    """POST ``body``; the status, headers and (undecoded) body of the answer, whatever the
    status, or :class:`TransportFailure` when none came."""
    client = await session()
    limit = aiohttp.ClientTimeout(sock_connect=timeout_s, sock_read=timeout_s, connect=timeout_s)
    for attempt in (0, 1):
        try:
            async with client.post(
                url, data=body, headers=headers, timeout=limit, allow_redirects=False
            ) as resp:
                return resp.status, resp.headers, await resp.read()
        except Exception as exc:  # any failure: named by litellm's table below
            error = litellm_error(exc)
            if attempt == 0 and isinstance(error, _RESENT):
                continue
            raise TransportFailure(error) from exc
    raise AssertionError("unreachable")  # pragma: no cover
