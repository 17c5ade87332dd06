"""``POST /v1/score``: one submission in, its Result out."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Body, HTTPException
from pydantic import ValidationError

from api.deps import JudgeDep, KeyDep, SettingsDep
from api.errors import ERROR_RESPONSES, error_body
from api.metrics import record_result
from api.models import ScoreOptions, ScoreRequest
from api.policy import check_options
from judge.domain.result import Result
from judge.domain.submission import Submission
from judge.errors import InputError
from judge.validation import parse_submission

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


def parse_request(body: Any) -> tuple[Submission, ScoreOptions]:
    """A bare Submission, or ``{"submission": ..., "options": ...}``; errors name the field."""
    if isinstance(body, dict) and "submission" in body:
        try:
            req = ScoreRequest.model_validate(body)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "(body)"
            msg = "unknown field" if err["type"] == "extra_forbidden" else err["msg"]
            raise InputError(field, msg) from None
        return req.submission, req.options
    return parse_submission(body), ScoreOptions()


REQUEST_SCHEMA = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "oneOf": [
                        {"$ref": "#/components/schemas/Submission"},
                        {"$ref": "#/components/schemas/ScoreRequest"},
                    ]
                }
            }
        },
    }
}


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
) -> Result:
    """Safety gate, subjective scores and checklist verdicts for one submission.

    Images must be ``data:`` URLs (or https URLs when the service allows them).
    """
    submission, options = parse_request(body)
    check_options(options, settings)
    try:
        result = await asyncio.wait_for(
            judge.ascore(submission, **options.overrides()), timeout=settings.score_timeout_s
        )
    except TimeoutError:
        raise HTTPException(
            504, error_body("timeout", f"scoring took longer than {settings.score_timeout_s} s")
        ) from None
    record_result(result.status, result.usage.llm_calls, result.usage.cache_hits)
    return result
