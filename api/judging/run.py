"""Judge one checked request for a route under the service's time limit and count it in the
metrics. ``POST /v1/score`` and ``POST /v1/compare`` share this.

Example (inside a route)::

    result = await judge_body(judge, settings, body, "score")
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import HTTPException
from pydantic import BaseModel

from api.core.errors import error_body
from api.core.prometheus import record_result
from api.core.settings import ServiceSettings
from api.judging.requests import check_body


async def judge_body(
    judge: Any, settings: ServiceSettings, body: Any, default_mode: str
) -> BaseModel:
    """Check ``body`` once (bare or wrapped; ``"mode"`` may pick another mode), then judge it
    without checking it again; 504 past ``JUDGE_SERVE_SCORE_TIMEOUT_S``."""
    checked = check_body(body, judge, settings, default_mode)
    try:
        result = await asyncio.wait_for(
            judge.arun_checked(checked), timeout=settings.score_timeout_s
        )
    except TimeoutError:
        raise HTTPException(
            504, error_body("timeout", f"judging took longer than {settings.score_timeout_s} s")
        ) from None
    record_result(result.status, result.usage.llm_calls, result.usage.cache_hits)
    return result
