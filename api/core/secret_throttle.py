"""One throttle for every secret the service checks: API keys (header and UI cookie),
participant codes (JSON route, form and cookie) and study ids on the participants' pages.

Wrong secrets are counted per client address and minute (``JUDGE_SERVE_AUTH_FAILURES_PER_MINUTE``).
Once an address is over the limit, the secrets it sends are refused (429) *without being
checked* — a guesser learns nothing more — except a secret that already succeeded from
that address in the last hour: a valid key keeps working even when another client behind
the same address (a proxy, a shared host) sends wrong ones. Failures are thus throttled by
(address, credential): the address's failures refuse only credentials it has not proved.

Example::

    ok = await check_secret(request, "api-key", token, lambda s: known(s), count_missing=True)
    # False: wrong (one failure counted); True: right; HTTPException(429): throttled
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Awaitable, Callable

from fastapi import HTTPException, Request

from api.core.limits import check_auth_failures, client_address
from api.core.state import core_state

PROVEN_TTL_S = 3600
"""How long a secret that succeeded from an address stays usable while that address is
throttled."""

Check = Callable[[str], "bool | Awaitable[bool]"]


def _proven_key(kind: str, address: str, secret: str) -> str:
    digest = hashlib.sha256(f"{kind}\0{address}\0{secret}".encode()).hexdigest()[:32]
    return f"judge:authok:{digest}"


async def _valid(check: Check, secret: str) -> bool:
    answer = check(secret)
    return bool(await answer) if inspect.isawaitable(answer) else bool(answer)


async def check_secret(
    request: Request, kind: str, secret: str | None, check: Check, *, count_missing: bool
) -> bool:
    """True when ``secret`` passes ``check``; False (one failure counted) when it does not;
    429 when the caller's address is throttled and ``secret`` has not succeeded from it
    before. A missing secret (None or empty) counts as a failure only with ``count_missing``
    (a header the route requires, a submitted form), not for an absent cookie."""
    state = core_state(request.app)
    redis, clock = state.redis, state.clock
    limit = state.settings.auth_failures_per_minute
    address = client_address(request)
    if not secret:
        if count_missing:
            await check_auth_failures(redis, address, limit, count=True, clock=clock)
        return False
    proven = _proven_key(kind, address, secret)
    try:
        await check_auth_failures(redis, address, limit, count=False, clock=clock)
    except HTTPException:
        if await redis.exists(proven) and await _valid(check, secret):
            return True
        raise
    if await _valid(check, secret):
        await redis.set(proven, b"1", ex=PROVEN_TTL_S)
        return True
    await check_auth_failures(redis, address, limit, count=True, clock=clock)
    return False
