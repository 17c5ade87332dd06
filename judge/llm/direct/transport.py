"""The direct route's HTTP client: one pooled aiohttp session per event loop.

A session belongs to the loop it was made on; it is closed when that loop shuts down (an
async generator parked on the loop closes it: ``asyncio.run`` and uvicorn finalise them on
the way out). A failure without an HTTP answer is a :class:`TransportFailure` (timeout,
dropped, or no connection; the original is its cause), which the route hands to litellm as
the same failure of its own client, so it comes out as litellm's error. A request whose
pooled connection the server had already closed is sent once more, as litellm's HTTP handler
does.

Example::

    status, headers, body = await post(url, {"Authorization": "Bearer k"}, b"{}", 60.0)
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass

import aiohttp
from aiohttp.helpers import get_env_proxy_for_url
from yarl import URL

_Held = tuple[aiohttp.ClientSession, AsyncIterator[None]]
#: each loop's session, and the parked generator that closes it with the loop
_SESSIONS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Held] = weakref.WeakKeyDictionary()


async def _closing(session: aiohttp.ClientSession) -> AsyncIterator[None]:
    try:
        yield
    finally:
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
        # the proxy is looked up once per endpoint (proxy_for), not on every request
        trust_env=False,
    )
    closer = _closing(made)
    await closer.__anext__()  # parked: the loop's shutdown_asyncgens closes the session
    _SESSIONS[loop] = (made, closer)
    return made


class TransportFailure(Exception):
    """No HTTP answer: ``kind`` is ``timeout``, ``disconnected`` or ``connect``; the
    original error is the cause."""

    def __init__(self, kind: str, exc: BaseException):
        super().__init__(f"{kind}: {type(exc).__name__}: {exc}")
        self.kind = kind


@dataclass(frozen=True)
class Proxy:
    """The proxy for an endpoint from the environment (``HTTPS_PROXY``, ``NO_PROXY``, ...),
    as httpx (litellm's client) would use it; ``url`` None: connect directly."""

    url: str | None = None
    auth: aiohttp.BasicAuth | None = None


def proxy_for(url: str) -> Proxy:
    """Look the endpoint's proxy up (reads the environment and maybe ``~/.netrc``: call it
    off the event loop, once per endpoint)."""
    try:
        proxy, auth = get_env_proxy_for_url(URL(url))
    except LookupError:
        return Proxy()
    return Proxy(str(proxy), auth)


async def post(
    url: str,
    headers: Mapping[str, str],
    body: bytes,
    timeout_s: float,
    *,
    proxy: Proxy = Proxy(),
) -> tuple[int, Mapping[str, str], bytes]:
    """POST ``body``; the status, headers and body of the answer (any status), or
    :class:`TransportFailure` when none came."""
    client = await session()
    limit = aiohttp.ClientTimeout(total=timeout_s)
    for attempt in (0, 1):
        try:
            async with client.post(
                url, data=body, headers=headers, timeout=limit, proxy=proxy.url,
                proxy_auth=proxy.auth,
            ) as resp:  # fmt: skip
                return resp.status, resp.headers, await resp.read()
        except (TimeoutError, aiohttp.ServerTimeoutError) as exc:
            raise TransportFailure("timeout", exc) from exc
        except aiohttp.ServerDisconnectedError as exc:
            if attempt == 0:
                continue  # a pooled connection the server had closed: once more, fresh
            raise TransportFailure("disconnected", exc) from exc
        except (aiohttp.ClientError, OSError) as exc:
            raise TransportFailure("connect", exc) from exc
    raise AssertionError("unreachable")  # pragma: no cover
