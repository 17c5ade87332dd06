"""``POST /v1/score``: one submission in, its Result out."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body
from fastapi.responses import JSONResponse

from api.core.deps import JudgeDep, KeyDep, SettingsDep
from api.core.errors import ERROR_RESPONSES
from api.judging.requests import body_schema
from api.judging.run import judge_body
from judge.domain.result import Result

router = APIRouter(prefix="/v1", tags=["score"])

EXAMPLE = {
    "task": {
        "id": "oe_1",
        "category": "OE",
        "brief": "A calm harbour at dawn.",
        "checklist": [
            {
                "id": "c1",
                "primitive": "implicit_style",
                "prompt_check": "The prompt asks for a photograph.",
                "image_check": "The image looks like a photograph.",
            }
        ],
    },
    "prompt": "Photograph of a quiet harbour at dawn, mist over the water",
    "images": ["data:image/png;base64,..."],
}


REQUEST_SCHEMA = body_schema("Submission", "ScoreRequest")


@router.post(
    "/score",
    response_model=Result,
    response_model_exclude_none=True,
    summary="Score one submission",
    openapi_extra=REQUEST_SCHEMA,
    responses=ERROR_RESPONSES,
)
async def score(
    judge: JudgeDep,
    settings: SettingsDep,
    _key: KeyDep,
    body: Any = Body(..., examples=[EXAMPLE]),  # noqa: B008 - FastAPI's idiom
) -> Any:
    """Safety gate, subjective scores and checklist verdicts for one submission.

    Images must be ``data:`` URLs (or https URLs when the service allows them). A body with
    ``"mode"`` runs that mode (e.g. ``edit``) and returns that mode's result.
    """
    result = await judge_body(judge, settings, body, "score")
    return JSONResponse(result.model_dump(mode="json", exclude_none=True))
