"""The fake provider's images endpoint over real HTTP, and image faults seen by chat calls."""

from __future__ import annotations

import base64
import io
import struct

import httpx
import pytest
from PIL import Image

from tests.fakes.provider import FakeProvider
from tests.fakes.provider.faults import check_kinds


def post(provider: FakeProvider, **body: object) -> httpx.Response:
    return httpx.post(f"{provider.base_url}/images/generations", json=body, timeout=10)


def decoded(resp: httpx.Response) -> list[Image.Image]:
    return [Image.open(io.BytesIO(base64.b64decode(d["b64_json"]))) for d in resp.json()["data"]]


def test_b64_images_are_deterministic_per_prompt_seed_and_index(provider: FakeProvider) -> None:
    a = post(provider, model="m", prompt="a cat", n=2, size="40x30", seed=1)
    assert a.status_code == 200 and [im.size for im in decoded(a)] == [(40, 30)] * 2
    b = post(provider, model="m", prompt="a cat", n=2, size="40x30", seed=1)
    assert a.json()["data"] == b.json()["data"]
    assert a.json()["data"][0] != a.json()["data"][1]
    c = post(provider, model="m", prompt="a dog", n=1, size="40x30", seed=1)
    assert c.json()["data"][0] != a.json()["data"][0]
    assert provider.calls == 3


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"prompt": "x"}, "model is required"),
        ({"model": "m", "prompt": ""}, "prompt is required"),
        ({"model": "m", "prompt": "x", "n": 11}, "n must be an integer from 1 to 10"),
        ({"model": "dall-e-3", "prompt": "x", "n": 2}, "n=1 for this model"),
        ({"model": "m", "prompt": "x", "size": "huge"}, "size must be WIDTHxHEIGHT"),
        ({"model": "m", "prompt": "x", "response_format": "gif"}, "response_format must be"),
    ],
)
def test_bad_requests_are_refused(provider: FakeProvider, body: dict, needle: str) -> None:
    resp = post(provider, **body)
    assert resp.status_code == 400 and needle in resp.json()["error"]["message"]
    assert provider.calls == 0 and provider.rejected


def test_url_results_are_served(provider: FakeProvider) -> None:
    resp = post(provider, model="dall-e-3", prompt="a cat", size="20x20", response_format="url")
    item = resp.json()["data"][0]
    assert item["revised_prompt"].startswith("a cat")
    got = httpx.get(item["url"], timeout=10)
    assert got.status_code == 200 and Image.open(io.BytesIO(got.content)).size == (20, 20)
    assert httpx.get(f"{provider.base_url}/_files/nope.png", timeout=10).status_code == 404


def test_content_faults(provider: FakeProvider) -> None:
    provider.fail_next(["refusal", "blocked", "empty", "corrupt", "oversized", "429"])
    refusal = post(provider, model="m", prompt="x")
    assert refusal.status_code == 400
    assert refusal.json()["error"]["code"] == "content_policy_violation"
    assert post(provider, model="m", prompt="x").json()["error"]["code"] == "moderation_blocked"
    assert post(provider, model="m", prompt="x").json()["data"] == []
    corrupt = post(provider, model="m", prompt="x").json()["data"][0]["b64_json"]
    assert not base64.b64decode(corrupt).startswith(b"\x89PNG")
    bomb = base64.b64decode(post(provider, model="m", prompt="x").json()["data"][0]["b64_json"])
    assert bomb.startswith(b"\x89PNG") and struct.unpack(">II", bomb[16:24]) == (30000, 30000)
    assert post(provider, model="m", prompt="x").status_code == 429
    assert provider.fault_counts["refusal"] == 1 and provider.calls == 6


def test_image_fault_kinds_are_named_only() -> None:
    assert check_kinds(["refusal", "empty"]) == ("refusal", "empty")
    with pytest.raises(ValueError, match="unknown fault kind"):
        check_kinds(["refused"])


def test_chat_calls_that_draw_image_faults_get_chat_equivalents(provider: FakeProvider) -> None:
    provider.fail_next(["refusal", "blocked"])
    url = f"{provider.base_url}/chat/completions"
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    first = httpx.post(url, json=body, timeout=10).json()["choices"][0]
    assert "can't help" in first["message"]["content"]
    second = httpx.post(url, json=body, timeout=10).json()["choices"][0]
    assert second["message"]["content"] == "" and second["finish_reason"] == "content_filter"


def test_image_faults_from_the_command_line_and_a_random_rate() -> None:
    from tests.fakes.provider.__main__ import parse_args

    args = parse_args(["--fault-kinds", "refusal,500", "--fault-rate", "0.2"])
    assert args.fault_kinds == ("refusal", "500") and args.fault_rate == 0.2
    with FakeProvider(fault_rate=1.0, fault_kinds=("refusal",)) as fake:
        resp = post(fake, model="m", prompt="x")
        assert resp.json()["error"]["code"] == "content_policy_violation"
