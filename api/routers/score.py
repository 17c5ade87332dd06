"""``POST /v1/score``: one submission in, its Result out."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Body, HTTPException

from api.deps import JudgeDep, KeyDep, SettingsDep
from api.errors import error_body
from api.metrics import record_result
from api.models import ScoreOptions, ScoreRequest
from judge.domain.result import Result
from judge.domain.submission import Submission
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
    """A bare Submission, or ``{"submission": ..., "options": ...}``."""
    if isinstance(body, dict) and "submission" in body:
        req = ScoreRequest.model_validate(body)
        return req.submission, req.options
    return parse_submission(body), ScoreOptions()


@router.post(
    "/score",
    response_model=Result,
    response_model_exclude_none=True,
    summary="Score one submission",
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
