"""``POST /v1/compare``: one pairwise comparison in, its ComparisonResult out."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body
from fastapi.responses import JSONResponse

from api.core.deps import JudgeDep, KeyDep, SettingsDep
from api.core.errors import ERROR_RESPONSES
from api.judging.requests import body_schema
from api.judging.run import judge_body
from judge.modes.compare.result import ComparisonResult

router = APIRouter(prefix="/v1", tags=["compare"])

EXAMPLE = {
    "id": "cmp-1",
    "prompt": "A lighthouse on a cliff at dusk",
    "a": {"image": "data:image/png;base64,...", "model": "flux"},
    "b": {"image": "data:image/png;base64,...", "model": "sd3"},
    "criteria": ["preference", "coherence", "alignment"],
}
REQUEST_SCHEMA = body_schema("Comparison", "CompareRequest")


@router.post(
    "/compare",
    response_model=ComparisonResult,
    response_model_exclude_none=True,
    summary="Compare two images of one prompt",
    openapi_extra=REQUEST_SCHEMA,
    responses=ERROR_RESPONSES,
)
async def compare(
    judge: JudgeDep,
    settings: SettingsDep,
    _key: KeyDep,
    body: Any = Body(..., examples=[EXAMPLE]),  # noqa: B008 - FastAPI's idiom
) -> Any:
    """Each criterion is asked twice with the images swapped; a winner needs both orders to
    agree, otherwise the criterion is a tie with ``position_consistent: false``.

    The body is a Comparison or ``{"comparison": ..., "options": {"allow_tie": true}}``.
    Images must be ``data:`` URLs (or https URLs when the service allows them).
    """
    result = await judge_body(judge, settings, body, "compare")
    return JSONResponse(result.model_dump(mode="json", exclude_none=True))
