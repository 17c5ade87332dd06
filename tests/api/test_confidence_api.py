"""``options.confidence`` on the service: ``POST /v1/score``, ``POST /v1/compare`` and
batches, against a live service and the fake provider; the operator's cap on K."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import (
    LiveService,
    assert_error,
    batch_results,
    fake_judge_env,
    live_service,
)
from tests.api.test_compare_api import comparison
from tests.conftest import submission
from tests.fakes.provider import FakeProvider
from tests.modes.test_compare import is_pairwise, prefers_red


@pytest.fixture(scope="module")
def service(module_tmp: Path, provider_session: FakeProvider) -> Iterator[LiveService]:
    provider_session.reset()
    env = fake_judge_env(provider_session, JUDGE_SERVE_MAX_CONFIDENCE_K="3")
    with live_service(env, module_tmp / "data") as svc:
        yield svc


@pytest.fixture
def client(service: LiveService, provider_session: FakeProvider) -> Iterator[httpx.Client]:
    provider_session.reset()
    provider_session.on(is_pairwise, prefers_red)
    with service.client() as c:
        yield c


def test_score_with_samples(client: httpx.Client, provider_session: FakeProvider) -> None:
    body = {"submission": submission("CO", n_checks=1, prompt="confidence, service"),
            "options": {"confidence": "samples:3", "cache": False}}  # fmt: skip
    r = client.post("/v1/score", json=body)
    assert r.status_code == 200, r.text
    got = r.json()
    item = got["objective"]["image"]["items"][0]
    assert item["confidence_method"] == "samples:3" and 0 <= item["confidence"] <= 1
    assert got["provenance"]["confidence"] == "samples:3"
    assert got["usage"]["confidence_calls"] == sum(1 for b in provider_session.requests
                                                   if "seed" in b)  # fmt: skip


def test_default_score_has_no_confidence(client: httpx.Client) -> None:
    r = client.post("/v1/score", json=submission("CO", n_checks=1, prompt="plain, service"))
    assert r.status_code == 200, r.text
    assert "confidence" not in r.text


def test_compare_with_swap(client: httpx.Client) -> None:
    r = client.post(
        "/v1/compare", json={"comparison": comparison(), "options": {"confidence": "swap"}}
    )
    assert r.status_code == 200, r.text
    crit = r.json()["criteria"]["preference"]
    assert (crit["winner"], crit["confidence"], crit["confidence_method"]) == ("b", 1.0, "swap")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"confidence": "samples:4"}, "this server allows K up to 3"),
        ({"confidence": "smaples:2"}, "did you mean 'samples'?"),
        ({"confidence": "swap"}, "swap compares the two orders of a comparison"),
        ({"confidence": "annotators:2", "confidence_memory": "../etc"}, "pattern"),
    ],
)
def test_bad_confidence_options_are_400_naming_the_option(
    client: httpx.Client, provider_session: FakeProvider, options: dict, message: str
) -> None:
    body = {"submission": submission("CO", n_checks=1), "options": options}
    field = "options.confidence_memory" if "confidence_memory" in options else "options.confidence"
    err = assert_error(client.post("/v1/score", json=body), 400, field)
    assert message in err["message"]
    assert provider_session.calls == 0


def test_a_batch_takes_the_option(client: httpx.Client) -> None:
    items = [{"mode": "compare", **comparison("batch, confident")}]
    lines = batch_results(client, {"items": items, "options": {"confidence": "swap"}})
    assert lines[0]["result"]["criteria"]["preference"]["confidence"] == 1.0
    too_many = {"items": [submission("OE", n_checks=1)], "options": {"confidence": "samples:9"}}
    assert_error(client.post("/v1/batches", json=too_many), 400, "options.confidence")
