"""Run one request of any mode for a route: parse, judge under the service's time limit,
count it in the metrics. ``POST /v1/score`` and ``POST /v1/compare`` share this."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import HTTPException
from pydantic import BaseModel

from api.core.errors import error_body
from api.core.prometheus import record_result
from api.core.settings import ServiceSettings
from api.judging.policy import check_overrides
from api.judging.requests import parse_request, prefixed
from judge.errors import InputError


async def judge_body(
    judge: Any, settings: ServiceSettings, body: Any, default_mode: str
) -> BaseModel:
    """Judge ``body`` (bare or wrapped; ``"mode"`` may pick another mode)."""
    parsed = parse_request(body, default_mode)
    check_overrides(parsed.overrides, settings)
    try:  # unknown criteria or cards, named inside the wrapped request
        settings_ = judge.settings.merged(**parsed.overrides)
        parsed.mode.check(parsed.request, judge.registry, settings_)
    except InputError as exc:
        wrapped = parsed.wrapped and exc.field != "skills"
        raise (prefixed(parsed.mode.wrapper_key, exc) if wrapped else exc) from None
    try:
        result = await asyncio.wait_for(
            judge.arun_request(parsed.request, mode=parsed.mode.name, **parsed.overrides),
            timeout=settings.score_timeout_s,
        )
    except TimeoutError:
        raise HTTPException(
            504, error_body("timeout", f"judging took longer than {settings.score_timeout_s} s")
        ) from None
    record_result(result.status, result.usage.llm_calls, result.usage.cache_hits)
    return result
