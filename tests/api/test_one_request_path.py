"""One fault, one answer: the same bad request gets the same status and names the same
field on ``POST /v1/score``, ``POST /v1/compare`` and ``POST /v1/batches`` (where the item's
index comes first), and a fault the worker finds names the item too. Against a live service
with the fake provider and one inline worker."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.api.conftest import assert_error, batch_results, live_service
from tests.api.test_compare_api import comparison
from tests.api.test_service import fake_model_env
from tests.conftest import submission
from tests.fakes.provider import FakeProvider

NOT_AN_IMAGE = "data:image/png;base64,bm90IGFuIGltYWdl"


def without(data: dict, key: str) -> dict:
    return {k: v for k, v in data.items() if k != key}


def sub(**over: Any) -> dict:
    return {**submission("OE", n_checks=1), **over}


# fault: (route, body, the field that route names)
FAULTS: dict[str, tuple[str, dict, str]] = {
    "missing field": ("/v1/score", without(sub(), "prompt"), "prompt"),
    "missing field, wrapped": (
        "/v1/score",
        {"submission": without(sub(), "prompt")},
        "submission.prompt",
    ),
    "wrong type": ("/v1/score", sub(prompt=7), "prompt"),
    "wrong type, nested": ("/v1/score", sub(task="oe_1"), "task"),
    "unknown card": (
        "/v1/score",
        {"submission": sub(), "options": {"skills": ["no_such_card"]}},
        "options.skills",
    ),
    "unknown option": (
        "/v1/score",
        {"submission": sub(), "options": {"bogus": 1}},
        "options.bogus",
    ),
    "compare, missing field": ("/v1/compare", without(comparison(), "prompt"), "prompt"),
    "compare, wrong type": ("/v1/compare", comparison(a="red"), "a"),
    "compare, unknown criterion": ("/v1/compare", comparison(criteria=["beauty"]), "criteria[0]"),
    "compare, wrapped": (
        "/v1/compare",
        {"comparison": comparison(criteria=["beauty"]), "options": {"allow_tie": True}},
        "comparison.criteria[0]",
    ),
    "compare, wrong option type": (
        "/v1/compare",
        {"comparison": comparison(), "options": {"allow_tie": "maybe"}},
        "options.allow_tie",
    ),
}


@pytest.fixture(scope="module")
def client(module_tmp: Path, provider_session: FakeProvider) -> Iterator[httpx.Client]:
    """A key-less service on the fake model with one inline worker, and its client."""
    env = {**fake_model_env(provider_session), "JUDGE_SERVE_INLINE_WORKERS": "1"}
    with live_service(env, module_tmp / "data") as svc, svc.client() as c:
        yield c


def as_item(route: str, body: dict) -> dict:
    """``body`` as a batch item: a comparison says its mode."""
    return {"mode": "compare", **body} if route == "/v1/compare" else body


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_fault_is_named_alike_on_every_route(client: httpx.Client, fault: str) -> None:
    route, body, field = FAULTS[fault]
    direct = assert_error(client.post(route, json=body), 400, field)
    assert direct["code"] == "invalid_input"
    if route == "/v1/compare":  # a comparison sent to /v1/score with its mode
        via_score = client.post("/v1/score", json=as_item(route, body))
        assert assert_error(via_score, 400, field) == direct
    good = as_item("/v1/score", sub())
    batch = assert_error(
        client.post("/v1/batches", json=[good, as_item(route, body)]), 400, f"items[1].{field}"
    )
    assert batch["code"] == "invalid_input"
    assert batch["message"] == f"items[1].{direct['message']}"


def test_a_fault_of_the_batch_options_is_named_as_the_routes_name_it(
    client: httpx.Client,
) -> None:
    options = {"skills": ["no_such_card"]}
    direct = assert_error(
        client.post("/v1/score", json={"submission": sub(), "options": options}),
        400,
        "options.skills",
    )
    batch = client.post("/v1/batches", json={"items": [sub()], "options": options})
    assert assert_error(batch, 400, "options.skills") == direct


def test_a_fault_found_by_the_worker_names_the_item(client: httpx.Client) -> None:
    bad = comparison("unreadable", a={"image": NOT_AN_IMAGE, "model": "sd3"})
    direct = assert_error(client.post("/v1/compare", json=bad), 400, "a.image")
    items = [as_item("/v1/compare", comparison("readable")), as_item("/v1/compare", bad)]
    lines = batch_results(client, items)  # images are read when an item runs
    assert [x["index"] for x in lines] == [0, 1]
    assert set(lines[0]["result"]["criteria"]) == {"preference", "alignment"}
    error = lines[1]["error"]
    assert (error["code"], error["field"]) == ("invalid_input", "items[1].a.image")
    assert error["message"] == f"items[1].{direct['message']}"
