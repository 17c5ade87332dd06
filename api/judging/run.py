"""Judge one checked request for a route under the service's time limit and count it in the
metrics. ``POST /v1/score`` and ``POST /v1/compare`` share this, and are both made by
:func:`judging_router`.

Example (inside a route)::

    result = await judge_body(judge, settings, body, "score")
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from fastapi import APIRouter, Body, HTTPException
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from api.core.deps import JudgeDep, KeyDep, SettingsDep
from api.core.errors import CONFIG_RESPONSE, ERROR_RESPONSES, error_body
from api.core.prometheus import record_result
from api.core.settings import ServiceSettings
from api.judging.requests import body_schema, check_body, named_as_sent
from judge.errors import InputError


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
    except InputError as exc:
        raise named_as_sent(exc, checked) from None
    except TimeoutError:
        raise HTTPException(
            504, error_body("timeout", f"judging took longer than {settings.score_timeout_s} s")
        ) from None
    record_result(result.status, result.usage.llm_calls, result.usage.cache_hits)
    return result


def judging_router(
    mode: str,
    *,
    result_model: type[BaseModel],
    summary: str,
    description: str,
    example: dict[str, Any],
    body_models: tuple[str, ...],
) -> APIRouter:
    """The router of ``POST /v1/<mode>`` (tag ``<mode>``, operation id
    ``<mode>_v1_<mode>_post``): the raw body, bare or wrapped (``body_models`` name its
    schemas), judged by :func:`judge_body` with ``mode`` as the default, its result returned
    without ``None`` fields.

    Example:
        >>> from judge.modes.compare.result import ComparisonResult
        >>> r = judging_router("compare", result_model=ComparisonResult, summary="s",
        ...                    description="d", example={}, body_models=("Comparison",))
        >>> [(route.path, route.operation_id, route.name) for route in r.routes]
        [('/v1/compare', 'compare_v1_compare_post', 'compare')]
    """
    router = APIRouter(prefix="/v1", tags=[mode])

    async def judge_route(
        judge: JudgeDep,
        settings: SettingsDep,
        _key: KeyDep,
        body: Any = Body(..., examples=[example]),  # noqa: B008 - FastAPI's idiom
    ) -> Any:
        result = await judge_body(judge, settings, body, mode)
        return JSONResponse(result.model_dump(mode="json", exclude_none=True))

    router.add_api_route(
        f"/{mode}",
        judge_route,
        methods=["POST"],
        response_model=result_model,
        response_model_exclude_none=True,
        summary=summary,
        description=inspect.cleandoc(description),
        operation_id=f"{mode}_v1_{mode}_post",
        name=mode,  # the endpoint's name, as when each route was its own function
        openapi_extra=body_schema(*body_models),
        responses={**ERROR_RESPONSES, **CONFIG_RESPONSE},
    )
    return router
