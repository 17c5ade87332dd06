"""Provider-aware image size (judge.io.provider_size): images go out at the size the provider
documents scaling them to, so what the provider's model sees does not change (issue 26)."""

from __future__ import annotations

import base64
import io

import numpy as np
import pytest
from PIL import Image

import judge.io.provider_size as provider_size
from judge.config import JudgeSettings
from judge.io.prepare import payload_for_models
from judge.io.provider_size import SizeRule, provider_view, rule, rules, send_size
from tests.conftest import submission

OPENAI = JudgeSettings(model="openai/gpt-4o")
SIZES = [(1024, 1024), (4096, 2048), (3000, 1000), (600, 400), (2048, 4096), (1600, 1200)]


def photo(size: tuple[int, int]) -> Image.Image:
    """A smooth, photo-like RGB image (gradients and a disc)."""
    w, h = size
    y, x = np.mgrid[0:h, 0:w]
    rgb = np.stack([255 * x / w, 255 * y / h, 128 + 100 * np.sin(x / 40.0)], axis=-1)
    rgb[(x - w / 2) ** 2 + (y - h / 2) ** 2 < (min(w, h) / 4) ** 2] = (240, 200, 40)
    return Image.fromarray(rgb.astype(np.uint8))


def decoded(data_url: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(data_url.split(",", 1)[1]))).convert("RGB")


def test_the_table_is_data_with_a_source_for_every_rule():
    assert {r.name for r in rules()} >= {"openai-high-detail", "anthropic"}
    for r in rules():
        assert r.models and r.source.startswith("https://")
        assert r.fit_within or r.short_side or r.max_side
    with pytest.raises(KeyError, match="known"):
        rule("nope")


def test_openai_high_detail_follows_the_documented_steps():
    r = rule("openai-high-detail")
    assert provider_view((2048, 4096), r) == (768, 1536)  # OpenAI's own worked example
    assert provider_view((1024, 1024), r) == (768, 768)
    assert provider_view((600, 400), r) == (600, 400)  # never enlarged


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        (OPENAI, (768, 768)),
        (JudgeSettings(model="gpt-4o-mini"), (768, 768)),  # no prefix: OpenAI's
        (JudgeSettings(model="openai/gpt-4o", api_base="http://127.0.0.1:1/v1"), (1024, 1024)),
        (JudgeSettings(model="openai/gpt-4.1-mini"), (1024, 1024)),  # another documented rule
        (JudgeSettings(model="hosted_vllm/qwen2-vl"), (1024, 1024)),
        (JudgeSettings(model="openai/gpt-4o", provider_image_size=False), (1024, 1024)),
        (JudgeSettings(panel=["openai/gpt-4o", "anthropic/claude-sonnet-4"]), (1024, 1024)),
        (JudgeSettings(panel=["openai/gpt-4o", "gemini/gemini-2.5-pro"]), (1024, 1024)),
    ],
)
def test_send_size_only_shrinks_where_every_judge_model_has_a_rule(settings, expected):
    assert send_size((1024, 1024), settings) == expected


@pytest.mark.parametrize("size", SIZES)
def test_the_provider_side_view_is_unchanged(size):
    """Before: the judge sent the image capped at image_max_side and OpenAI scaled it down.
    Now: the judge sends it at OpenAI's size, which OpenAI keeps. Same size, same pixels (up to
    resampling and JPEG rounding)."""
    r = rule("openai-high-detail")
    original = photo(size)
    before = payload_for_models(original, OPENAI.merged(provider_image_size=False))
    now = payload_for_models(original, OPENAI)
    seen_before = decoded(before.data_url)
    seen_before = seen_before.resize(provider_view(seen_before.size, r), Image.Resampling.LANCZOS)
    seen_now = decoded(now.data_url)
    assert provider_view(seen_now.size, r) == seen_now.size  # the provider keeps it as sent
    assert seen_now.size == seen_before.size
    diff = np.abs(np.asarray(seen_now, float) - np.asarray(seen_before, float))
    assert diff.mean() < 2.0  # out of 255: resampling and JPEG rounding only
    assert len(now.data_url) <= len(before.data_url)


async def test_the_provider_receives_the_documented_size_and_the_opt_out_restores_it(
    make_judge, provider, monkeypatch
):
    """End to end through litellm, with a rule that covers the fake's model at its endpoint."""
    fake_rule = SizeRule(
        name="fake", models=("openai/fake-judge",), default_endpoint_only=False, short_side=24
    )
    monkeypatch.setattr(provider_size, "rules", lambda: (fake_rule,))
    sub = submission("CO", n_checks=1)  # one 32x32 image
    await make_judge().ascore(sub)
    assert {(i.width, i.height) for c in provider.wire_calls for i in c.images} == {(24, 24)}
    provider.reset()
    await make_judge(provider_image_size=False).ascore(sub)
    assert {(i.width, i.height) for c in provider.wire_calls for i in c.images} == {(32, 32)}
