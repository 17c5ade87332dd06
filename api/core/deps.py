"""``Annotated`` dependency aliases shared by the routers: settings, engine, Redis, and the
caller's key (authentication, admin rights and rate limits).

Example::

    @router.post("/v1/memories/{name}/exemplars")
    async def add(name: str, key: AdminKeyDep) -> ...: ...
"""

from __future__ import annotations

import hmac
from typing import Annotated

import redis.asyncio as aredis
from fastapi import Depends, HTTPException, Request

from api.core.errors import error_body
from api.core.limits import charge
from api.core.secret_throttle import check_secret
from api.core.settings import ServiceSettings
from api.core.state import core_state
from judge.engine import Judge

ANONYMOUS = "anonymous"


# coroutines: FastAPI runs a plain function dependency in a worker thread, a thread hop per
# request for an attribute read
async def get_settings(request: Request) -> ServiceSettings:
    return core_state(request.app).settings


async def get_judge(request: Request) -> Judge:
    return core_state(request.app).judge


async def get_redis(request: Request) -> aredis.Redis:
    return core_state(request.app).redis


def key_variables(settings: ServiceSettings) -> str:
    """The variables that hold this service's keys, as a 401 says them (only what is set).

    Example:
        >>> key_variables(ServiceSettings(admin_keys="a" * 16))
        'JUDGE_SERVE_ADMIN_KEYS; this service sets no JUDGE_SERVE_API_KEYS'
    """
    if settings.api_keys:
        return "JUDGE_SERVE_API_KEYS or JUDGE_SERVE_ADMIN_KEYS"
    return "JUDGE_SERVE_ADMIN_KEYS; this service sets no JUDGE_SERVE_API_KEYS"


async def _identify(request: Request) -> str:
    """The caller's key (``"anonymous"`` when auth is off); 401 when missing or wrong, 429
    when the caller's address sent too many wrong keys this minute."""
    settings = core_state(request.app).settings
    if not settings.auth_required:
        return ANONYMOUS
    token = _bearer_token(request)
    ok = await check_secret(
        request, "api-key", token, lambda k: known_key(settings, k), count_missing=True
    )
    if not ok or token is None:
        raise HTTPException(
            401,
            error_body(
                "unauthorized",
                f"send 'Authorization: Bearer <key>' with a key from {key_variables(settings)}",
                "Authorization",
            ),
            headers={"WWW-Authenticate": "Bearer"},
        )
    return token


async def check_key(request: Request) -> str:
    """The caller's key, checked but not charged to any budget (401/429 as for /v1)."""
    return await _identify(request)


async def require_key(request: Request) -> str:
    """The caller's key; one unit of the per-key rate limit (429 when over)."""
    key = await _identify(request)
    state = core_state(request.app)
    limit = state.settings.rate_limit_per_minute
    await charge(state.redis, key, limit, clock=state.clock)
    return key


async def require_poll_key(request: Request) -> str:
    """The caller's key, charged to the separate (larger) budget of batch polling."""
    key = await _identify(request)
    state = core_state(request.app)
    await charge(state.redis, key, state.settings.poll_limit, bucket="poll", clock=state.clock)
    return key


async def require_admin(request: Request) -> str:
    """The caller's key when it may change what the service stores (memories, studies,
    participant codes): with keys configured, one of ``JUDGE_SERVE_ADMIN_KEYS``; without keys, only
    on a loopback-only service. 403 otherwise."""
    key = await require_key(request)
    settings = core_state(request.app).settings
    if is_admin(settings, key):
        return key
    if not settings.auth_required:
        message = (
            "admin routes (memories, studies) are disabled on a public service without keys; "
            "set JUDGE_SERVE_ADMIN_KEYS and send one of them"
        )
    elif settings.admin_keys:
        message = "this route needs an admin key (one of JUDGE_SERVE_ADMIN_KEYS); yours may read"
    else:
        message = (
            "admin routes (memories, studies) are disabled: no JUDGE_SERVE_ADMIN_KEYS are "
            "configured"
        )
    raise HTTPException(403, error_body("forbidden", message, "Authorization"))


def is_admin(settings: ServiceSettings, key: str) -> bool:
    """True when ``key`` may do what admins do: one of ``JUDGE_SERVE_ADMIN_KEYS``, or anyone on a
    loopback-only service without keys."""
    if not settings.auth_required:
        return settings.loopback_only
    return any(hmac.compare_digest(key.encode(), k.encode()) for k in settings.admin_keys)


def _bearer_token(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def known_key(settings: ServiceSettings, given: str) -> bool:
    """True when ``given`` is one of the configured keys (compared with every key, in
    constant time per key: no early exit)."""
    known = False
    for k in settings.all_keys:
        known |= hmac.compare_digest(given.encode(), k.encode())
    return known


SettingsDep = Annotated[ServiceSettings, Depends(get_settings)]
JudgeDep = Annotated[Judge, Depends(get_judge)]
RedisDep = Annotated[aredis.Redis, Depends(get_redis)]
KeyDep = Annotated[str, Depends(require_key)]
PollKeyDep = Annotated[str, Depends(require_poll_key)]
AdminKeyDep = Annotated[str, Depends(require_admin)]
