"""``Annotated`` dependency aliases shared by the routers."""

from __future__ import annotations

import hmac
from typing import Annotated

import redis.asyncio as aredis
from fastapi import Depends, HTTPException, Request

from api.errors import error_body
from api.limits import check_rate
from api.settings import ServiceSettings
from judge.engine import Judge


def get_settings(request: Request) -> ServiceSettings:
    return request.app.state.settings


def get_judge(request: Request) -> Judge:
    return request.app.state.judge


def get_redis(request: Request) -> aredis.Redis:
    return request.app.state.redis


async def require_key(request: Request) -> str:
    """The caller's API key (``"anonymous"`` when auth is off); 401 when it is missing or
    wrong, 429 when the key is over its rate limit."""
    settings: ServiceSettings = request.app.state.settings
    key = "anonymous"
    if settings.auth_required:
        key = _bearer(request, settings)
    await check_rate(request.app.state.redis, key, settings.rate_limit_per_minute)
    return key


def _bearer(request: Request, settings: ServiceSettings) -> str:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    given = token.strip().encode()
    known = any(hmac.compare_digest(given, k.encode()) for k in settings.api_keys)
    if scheme.lower() != "bearer" or not known:
        raise HTTPException(
            401,
            error_body(
                "unauthorized",
                "send 'Authorization: Bearer <key>' with a key from JUDGE_API_KEYS",
                "Authorization",
            ),
            headers={"WWW-Authenticate": "Bearer"},
        )
    return token.strip()


SettingsDep = Annotated[ServiceSettings, Depends(get_settings)]
JudgeDep = Annotated[Judge, Depends(get_judge)]
RedisDep = Annotated[aredis.Redis, Depends(get_redis)]
KeyDep = Annotated[str, Depends(require_key)]
