"""``POST /v1/score``: one submission in, its Result out."""

from __future__ import annotations

from api.judging.run import judging_router
from judge.domain.result import Result

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

router = judging_router(
    "score",
    result_model=Result,
    summary="Score one submission",
    description="""
    Safety gate, subjective scores and checklist verdicts for one submission.

    Images must be ``data:`` URLs (or https URLs when the service allows them). A body with
    ``"mode"`` runs that mode (e.g. ``edit``) and returns that mode's result.
    """,
    example=EXAMPLE,
    body_models=("Submission", "ScoreRequest"),
)
