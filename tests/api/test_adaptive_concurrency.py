"""The service under a provider's server-side rate limit: its adaptive concurrency limit comes
down to what the provider takes, every submission is scored, and /metrics shows the limit and
the throttling events (issue 26).

The fake provider refuses chat calls beyond ``RATE`` a second (HTTP 429 with OpenAI's
rate-limit headers). The service starts at 64 calls in flight per route; a burst of concurrent
submissions asks for far more than the provider allows. The checks are on counts, never on
wall-clock bounds: no submission fails, the first burst meets few refusals beyond its first
wave (after each wait the provider names, calls restart one at a time), once the limit has
come down a second burst meets few refusals (the limit backed off instead of hammering), the
service kept probing the limit (refusals did happen, and every one reached /metrics as a
throttling event) and the limit it ended with is near what the provider sustains (its rate
times the call latency), far below where it started.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from judge.llm.adaptive import START
from tests.api.conftest import LiveService, live_service, metric_value
from tests.api.test_service import fake_model_env
from tests.conftest import submission
from tests.fakes.provider import FakeProvider

RATE = 20.0  # requests a second the provider takes
LATENCY = 0.2  # seconds per call: the provider sustains RATE * LATENCY = 4 calls in flight
SUBMISSIONS = 10  # 14 calls each, all sent at once


@pytest.fixture(scope="module")
def limited() -> Iterator[FakeProvider]:
    with FakeProvider(latency=LATENCY, rate_limit=RATE) as fake:
        yield fake


@pytest.fixture(scope="module")
def service(module_tmp: Path, limited: FakeProvider) -> Iterator[LiveService]:
    env = {
        **fake_model_env(limited),
        **{"JUDGE_BACKOFF_BASE_S": "0.05", "JUDGE_BACKOFF_MAX_S": "1", "JUDGE_MAX_RETRIES": "10"},
    }
    with live_service(env, module_tmp / "data") as svc:
        yield svc


async def _score_all(base_url: str, burst: int = 0) -> list[httpx.Response]:
    async with httpx.AsyncClient(base_url=base_url, timeout=300) as client:
        bodies = [  # new prompts in every burst: nothing comes from the response cache
            {"submission": submission("CO", n_checks=2, prompt=f"a red cube #{i} ({burst})")}
            for i in range(SUBMISSIONS)
        ]
        return await asyncio.gather(*(client.post("/v1/score", json=b) for b in bodies))


def _scored(responses: list[httpx.Response]) -> list[dict]:
    assert [r.status_code for r in responses] == [200] * SUBMISSIONS
    results = [r.json() for r in responses]
    assert {res["status"] for res in results} == {"scored"}
    return results


@pytest.mark.slow
def test_the_limit_converges_near_the_providers_rate_without_failed_submissions(
    service: LiveService, limited: FakeProvider
) -> None:
    limited.reset()
    # the first burst: START calls at once against a bucket of RATE, then the limit comes down
    results = _scored(asyncio.run(_score_all(service.base_url)))
    assert sum(res["usage"]["llm_calls"] for res in results) == SUBMISSIONS * 14
    answered, refused = limited.calls, limited.rate_limit.refused
    assert answered == SUBMISSIONS * 14  # retries of refused calls are answered once each
    assert refused > 0  # the service reached the provider's limit
    # After each wait the provider names, calls restart from one, paced by that wait, instead
    # of every waiting call going at once into a bucket refilled by about one call: 16 to 19
    # refusals were seen on one machine (4 runs), against 66 to 81 before the restart
    assert refused <= START * 3 // 4
    _scored(asyncio.run(_score_all(service.base_url, burst=1)))
    answered_2 = limited.calls - answered
    refused_2 = limited.rate_limit.refused - refused
    print(f"refused {refused} of {answered + refused} calls, then {refused_2} of {answered_2}")
    assert answered_2 > 0
    # ... it stays near what the provider takes instead of hammering it: the additive increase
    # finds the limit again now and then (4 to 7 refusals of 110 calls seen), no more
    assert refused_2 < 0.15 * answered_2
    refused += refused_2

    with service.client() as client:
        text = client.get("/metrics").text
    route = {"route": f"openai/fake-judge@127.0.0.1:{limited.port}"}
    throttles = metric_value(text, "judge_llm_throttle_events_total", route)
    assert (
        metric_value(text, "judge_llm_throttle_events_total", {**route, "cause": "429"}) == refused
    )
    assert throttles >= refused  # 429s, and exhausted windows seen in the headers
    limit = metric_value(text, "judge_llm_concurrency_limit", route)
    print(f"limit {limit}, throttle events {throttles}")
    # it came down from START. How far depends on the round-trip time the service sees, which
    # a busy machine stretches beyond LATENCY (Little's law: RATE x observed latency calls fit
    # in flight), so the bound is half of START rather than a multiple of RATE x LATENCY.
    assert 1 <= limit <= START / 2
    # the calls allowed in flight now: the limit, or fewer while restarting after a wait
    assert 1 <= metric_value(text, "judge_llm_concurrency_window", route) <= limit
