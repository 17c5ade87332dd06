"""ImageGenerator through real litellm against the fake provider's images endpoint on loopback."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable, Iterator

import pytest
from PIL import Image

from eval.t2i import BackendSpec, Generation, ImageGenerator
from judge.config import JudgeSettings
from tests.fakes.provider import FakeProvider

FAST = JudgeSettings(backoff_base_s=0.001, backoff_max_s=0.01)


@pytest.fixture
def gen() -> ImageGenerator:
    return ImageGenerator(FAST)


@pytest.fixture
def backend(provider: FakeProvider) -> Callable[..., BackendSpec]:
    def make(**over: object) -> BackendSpec:
        fields: dict[str, object] = {
            "id": "fake", "model": "openai/fake-image", "api_base": provider.base_url,
            "size": "64x48", "timeout_s": 60.0, "max_retries": 2,
        }  # fmt: skip
        fields.update(over)
        return BackendSpec.model_validate(fields)

    return make


def sizes(g: Generation) -> list[tuple[int, int]]:
    return [Image.open(io.BytesIO(b)).size for b in g.images]


def image_bodies(provider: FakeProvider) -> list[dict]:
    return [c.body for c in provider.wire_calls if c.path.endswith("/images/generations")]


async def test_ok_with_four_images_in_one_call(gen, backend, provider) -> None:
    g = await gen.generate(backend(), "a red cube", 4, seed=11)
    assert g.status == "ok" and g.reason is None
    assert len(g.images) == 4 and all(b.startswith(b"\x89PNG") for b in g.images)
    assert sizes(g) == [(64, 48)] * 4
    assert len(set(g.images)) == 4  # one per index, so best-of-n has a choice
    assert g.usage["calls"] == 1 == provider.calls
    assert g.usage["latency_s"] > 0
    (body,) = image_bodies(provider)
    assert (body["n"], body["size"], body["seed"]) == (4, "64x48", 11)
    again = await gen.generate(backend(), "a red cube", 4, seed=11)
    assert again.images == g.images  # the fake is deterministic; nothing is cached
    await gen.aclose()  # closes this loop's clients; the next call opens new ones
    assert (await gen.generate(backend(), "a red cube", 1)).status == "ok"


async def test_refusal_is_recorded_not_retried(gen, backend, provider) -> None:
    provider.fail_next(["refusal"])
    g = await gen.generate(backend(), "something forbidden", 2)
    assert g.status == "refused" and g.images == []
    assert "safety system" in g.reason and "litellm." not in g.reason
    assert g.usage["calls"] == 1 == provider.calls


async def test_moderation_block_is_blocked(gen, backend, provider) -> None:
    provider.fail_next(["blocked"])
    g = await gen.generate(backend(), "a portrait", 1)
    assert g.status == "blocked" and "moderation_blocked" in g.reason
    assert provider.calls == 1


async def test_no_image_data_is_empty(gen, backend, provider) -> None:
    provider.fail_next(["empty"])
    g = await gen.generate(backend(), "a tree", 3)
    assert g.status == "empty" and g.images == [] and "no images" in g.reason


async def test_server_error_then_retry_succeeds(gen, backend, provider) -> None:
    provider.fail_next(["500"])
    g = await gen.generate(backend(), "a boat", 2)
    assert g.status == "ok" and len(g.images) == 2
    # every attempt is counted once: no hidden retries inside litellm or the OpenAI SDK
    assert g.usage["calls"] == 2 == provider.calls
    assert provider.fault_counts == {"500": 1}


async def test_errors_past_the_retry_budget_fail_with_the_cause(gen, backend, provider) -> None:
    provider.fail_next(["503", "503", "503"])
    g = await gen.generate(backend(max_retries=2), "a boat", 1)
    assert g.status == "failed" and "HTTP 503" in g.reason and "3 attempts" in g.reason
    assert g.usage["calls"] == 3 == provider.calls


async def test_timeout_fails_with_the_limit(gen, backend, provider) -> None:
    provider.fail_next(["timeout"])
    g = await gen.generate(backend(timeout_s=0.3, max_retries=0), "a slow boat", 1)
    assert g.status == "failed" and "0.3 s timeout" in g.reason
    assert g.usage["calls"] == 1


async def test_fatal_errors_are_not_retried(gen, backend, provider) -> None:
    provider.fail_next(["404"])
    g = await gen.generate(backend(), "a boat", 1)
    assert g.status == "failed" and "not found" in g.reason and "api_base" in g.reason
    assert provider.calls == 1


async def test_corrupt_image_bytes_fail(gen, backend, provider) -> None:
    provider.fail_next(["corrupt"])
    g = await gen.generate(backend(), "a boat", 2)
    assert g.status == "failed" and "not a readable image" in g.reason


async def test_decompression_bomb_is_refused(gen, backend, provider) -> None:
    provider.fail_next(["oversized"])
    g = await gen.generate(backend(), "a boat", 1)
    assert g.status == "failed" and "too many pixels" in g.reason


async def test_pixel_limit_applies_to_generated_images(backend, provider) -> None:
    small = ImageGenerator(JudgeSettings(image_max_pixels=1000, backoff_base_s=0.001))
    g = await small.generate(backend(size="64x64"), "a boat", 1)
    assert g.status == "failed" and "4096 pixels, over the limit of 1000 pixels" in g.reason


async def test_url_results_from_loopback_need_allow_private_urls(gen, backend, provider) -> None:
    spec = backend(model="openai/dall-e-3", extra={"response_format": "url"})
    g = await gen.generate(spec, "a lighthouse", 1)
    assert g.status == "failed" and "allow_private_urls" in g.reason
    trusted = backend(model="openai/dall-e-3", extra={"response_format": "url"},
                      allow_private_urls=True)  # fmt: skip
    g = await gen.generate(trusted, "a lighthouse", 3)
    assert g.status == "ok" and sizes(g) == [(64, 48)] * 3
    assert g.revised_prompt == "a lighthouse (revised by the fake provider)"
    assert g.usage["cost_usd"] > 0  # litellm prices dall-e-3 per image


async def test_capped_n_is_split_into_calls_with_distinct_seeds(gen, backend, provider) -> None:
    g = await gen.generate(backend(model="openai/dall-e-3"), "a fox", 3, seed=5)
    assert g.status == "ok" and len(set(g.images)) == 3
    bodies = image_bodies(provider)
    assert sorted(b["seed"] for b in bodies) == [5, 6, 7] and {b["n"] for b in bodies} == {1}
    assert all(b["response_format"] == "b64_json" for b in bodies)
    assert g.usage["calls"] == 3


async def test_partial_success_keeps_the_images_and_says_why(gen, backend, provider) -> None:
    provider.fail_next(["refusal"])
    g = await gen.generate(backend(max_n=2, concurrency=1), "a fox", 4)
    assert g.status == "ok" and len(g.images) == 2
    assert g.reason.startswith("2 of 4 images") and "refused" in g.reason


async def test_spec_seed_and_extra_are_passed(gen, backend, provider) -> None:
    await gen.generate(backend(seed=42, extra={"quality": "low"}), "a fox", 1)
    (body,) = image_bodies(provider)
    assert body["seed"] == 42 and body["quality"] == "low"


async def test_missing_key_variable_is_named_and_nothing_is_sent(
    gen, backend, provider, monkeypatch
) -> None:
    monkeypatch.delenv("T2I_TEST_KEY", raising=False)
    g = await gen.generate(backend(api_key_env="T2I_TEST_KEY"), "a fox", 1)
    assert g.status == "failed" and "T2I_TEST_KEY" in g.reason and provider.calls == 0
    monkeypatch.setenv("T2I_TEST_KEY", "sk-test")
    assert (await gen.generate(backend(api_key_env="T2I_TEST_KEY"), "a fox", 1)).status == "ok"


async def test_hosted_model_without_a_key_fails_before_any_call(gen, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    g = await gen.generate(BackendSpec(id="d3", model="openai/dall-e-3"), "a fox", 1)
    assert g.status == "failed" and "OPENAI_API_KEY" in g.reason and "api_key_env" in g.reason
    assert g.usage["calls"] == 0


async def test_bad_arguments_fail_clearly(gen, backend, provider) -> None:
    assert "n must be" in (await gen.generate(backend(), "a fox", 0)).reason
    assert "prompt is empty" in (await gen.generate(backend(), "  ", 1)).reason
    g = await gen.generate(backend(model="nosuchprovider/x", api_base=None), "a fox", 1)
    assert g.status == "failed" and "backend fake" in g.reason
    assert provider.calls == 0


@pytest.fixture
def slow_provider() -> Iterator[FakeProvider]:
    with FakeProvider(latency=0.05) as fake:
        yield fake


async def test_concurrency_cap_is_honoured(gen, slow_provider) -> None:
    spec = BackendSpec(id="capped", model="openai/dall-e-3", api_base=slow_provider.base_url,
                       size="32x32", concurrency=2)  # fmt: skip
    results = await asyncio.gather(*(gen.generate(spec, f"prompt {k}", 2) for k in range(4)))
    assert all(g.status == "ok" and len(g.images) == 2 for g in results)
    assert slow_provider.calls == 8 and slow_provider.max_in_flight == 2
    wide = spec.model_copy(update={"id": "wide", "concurrency": 8})
    slow_provider.reset()
    slow_provider.latency = 0.3  # long enough for the calls of a wider cap to overlap
    await asyncio.gather(*(gen.generate(wide, f"prompt {k}", 2) for k in range(4)))
    assert slow_provider.max_in_flight > 2


async def test_warm_up_runs_off_the_loop_once_per_provider(gen, backend, provider) -> None:
    from eval.t2i import warmup

    gen.warm([backend(), backend(model="builtin/renderer")])  # returns at once
    await warmup.ready(["openai/fake-image"])
    await warmup.ready(["openai/fake-image", "openai/other-image"])  # same provider: no rerun
    assert all(f.done() for f in warmup.start(["openai/fake-image", "openai/other-image"]))
    assert provider.calls == 0  # the dry call goes to a closed port, never to a provider
