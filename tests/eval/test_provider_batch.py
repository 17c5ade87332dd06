"""``judge meta-eval --provider-batch`` against the fake provider's batch API, through litellm."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from judge.fake_provider import FakeProvider
from tests.eval.conftest import EXPERT


def read_preds(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]


def test_batch_mode_matches_direct_mode(
    meta_eval: Callable[..., dict], provider: FakeProvider, tmp_path: Path
) -> None:
    direct = meta_eval(EXPERT, tmp_path / "direct", dataset="expert-jsonl")
    direct_calls = provider.calls
    provider.reset()
    batched = meta_eval(
        EXPERT, tmp_path / "batch", dataset="expert-jsonl",
        provider_batch=True, batch_wait=True, batch_poll_s=0.01,
    )
    print(direct_calls, provider.calls, provider.batches.stats(), batched["provider_batch"])
    assert provider.calls == 0
    assert batched["objective"] == direct["objective"]
