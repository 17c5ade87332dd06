"""The documented model calls per batching mode, pinned (issue 22): for the bundled-size CO
submission (12 checkpoints, one image, the 8 reference dimensions; what
``python -m benchmarks.score`` measures) the judge makes 34 calls by default, 28 with
``--subjective-batching per_modality``, 12 with ``--batching per_modality`` and 6 with both.
A deterministic count against the fake provider: every call reaches it."""

from __future__ import annotations

import pytest

from benchmarks.score import bench_submission

MODES = {
    "default": ({}, 34),
    "subjective per_modality": ({"subjective_batching": "per_modality"}, 28),
    "checkpoints per_modality": ({"checkpoint_batching": "per_modality"}, 12),
    "both per_modality": (
        {"subjective_batching": "per_modality", "checkpoint_batching": "per_modality"},
        6,
    ),
}


@pytest.fixture(scope="module")
def co12() -> dict:
    return bench_submission(12, side=256)


@pytest.mark.parametrize("mode", list(MODES))
async def test_calls_per_batching_mode(make_judge, provider, co12: dict, mode: str) -> None:
    options, calls = MODES[mode]
    result = await make_judge(**options).ascore(co12)
    assert result.status == "scored"
    assert result.usage.llm_calls == calls and provider.calls == calls
    assert len(result.subjective["prompt"]) == 4 and len(result.subjective["image"]) == 4
    assert result.objective["prompt"].scored == result.objective["image"].scored == 12
