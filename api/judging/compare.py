"""``POST /v1/compare``: one pairwise comparison in, its ComparisonResult out."""

from __future__ import annotations

from api.judging.run import judging_router
from judge.modes.compare.result import ComparisonResult

EXAMPLE = {
    "id": "cmp-1",
    "prompt": "A lighthouse on a cliff at dusk",
    "a": {"image": "data:image/png;base64,...", "model": "flux"},
    "b": {"image": "data:image/png;base64,...", "model": "sd3"},
    "criteria": ["preference", "coherence", "alignment"],
}

router = judging_router(
    "compare",
    result_model=ComparisonResult,
    summary="Compare two images of one prompt",
    description="""
    Each criterion is asked twice with the images swapped; a winner needs both orders to
    agree, otherwise the criterion is a tie with ``position_consistent: false``.

    The body is a Comparison or ``{"comparison": ..., "options": {"allow_tie": true}}``.
    Images must be ``data:`` URLs (or https URLs when the service allows them).
    """,
    example=EXAMPLE,
    body_models=("Comparison", "CompareRequest"),
)
