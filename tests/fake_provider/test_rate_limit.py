"""The fake provider's server-side rate limit (tests/fakes/provider/ratelimit.py): chat calls
beyond the rate are refused at once with HTTP 429 and OpenAI's rate-limit headers."""

from __future__ import annotations

import aiohttp
import litellm
import pytest

from judge.llm.ratelimit_headers import RateHeaders, headers_of
from tests.fakes.provider import FakeProvider
from tests.fakes.provider.__main__ import parse_args
from tests.fakes.provider.ratelimit import RateLimit

BODY = {"model": "fake", "messages": [{"role": "user", "content": "hi"}]}


def test_the_bucket_refills_at_the_rate() -> None:
    now = [0.0]
    bucket = RateLimit(rate=4.0, clock=lambda: now[0])
    assert [bucket.take().allowed for _ in range(5)] == [True] * 4 + [False]
    refused = bucket.take()
    assert (
        refused.retry_after_s == pytest.approx(0.25)
        and refused.headers()["retry-after-ms"] == "250"
    )
    now[0] = 0.5  # two tokens back
    assert [bucket.take().allowed for _ in range(3)] == [True, True, False]
    assert bucket.refused == 3
    with pytest.raises(ValueError, match="rate_limit"):
        bucket.configure(-1)


async def test_calls_beyond_the_rate_get_429_with_rate_limit_headers() -> None:
    with FakeProvider(rate_limit=2.0) as fake:
        url = f"{fake.base_url}/chat/completions"
        async with aiohttp.ClientSession() as session:
            replies = []
            for _ in range(3):
                async with session.post(url, json=BODY) as resp:
                    replies.append((resp.status, dict(resp.headers)))
        assert [status for status, _ in replies] == [200, 200, 429]
        first = RateHeaders.parse(replies[0][1])
        assert first.limit_requests == 2 and first.left_requests == 1
        refused = RateHeaders.parse(replies[2][1])
        assert refused.left_requests == 0 and refused.exhausted() and refused.wait_s() > 0
        assert fake.calls == 2 and fake.rate_limit.refused == 1  # refusals are not recorded

        fake.rate_limit.reset()
        kwargs = {"model": "openai/fake", "api_base": fake.base_url, "api_key": "x"}
        reply = await litellm.acompletion(messages=BODY["messages"], max_retries=0, **kwargs)
        assert headers_of(reply).left_requests == 1  # litellm hands the headers over
        await litellm.acompletion(messages=BODY["messages"], max_retries=0, **kwargs)
        with pytest.raises(litellm.RateLimitError) as err:
            await litellm.acompletion(messages=BODY["messages"], max_retries=0, **kwargs)
        assert headers_of(err.value).exhausted()


async def test_the_limit_is_steered_over_admin_and_the_command_line() -> None:
    assert parse_args(["--rate-limit", "40"]).rate_limit == 40
    with FakeProvider() as fake:
        root = fake.base_url.removesuffix("/v1")
        async with aiohttp.ClientSession() as session:
            async with session.post(f"{root}/_admin/config", json={"rate_limit": 1}) as resp:
                assert (await resp.json())["rate_limit"] == 1
            for expected in (200, 429):
                async with session.post(f"{fake.base_url}/chat/completions", json=BODY) as resp:
                    assert resp.status == expected
            async with session.get(f"{root}/_admin/stats") as resp:
                assert (await resp.json())["rate_limited"] == 1
