"""Metrics and error shapes (issue 38, items 7 and 9).

``/metrics`` on a keyed service needs a key unless ``JUDGE_SERVE_METRICS_NEED_KEY=false`` (here:
open to a scraper), and batch items count in ``judge_submissions_total`` like requests. Every
fault of a request is ``400 invalid_input`` naming the field, on every route (memories,
probes and studies answered 422); the 415 of ``/v1/batches`` names every type it takes; a
checklist item without an ``id`` gets ``c<n>`` through the service as in ``judge.score``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import LiveService, assert_error, live_service, metric_value
from tests.api.test_batches import make_items
from tests.api.test_service import fake_model_env
from tests.fakes.provider import FakeProvider

KEY = "kQ7-vT9_pL2xW8mR-metrics"
ADMIN = "aZ4-nK7_rB3yH6cE-admin"


@pytest.fixture(scope="module")
def svc(module_tmp: Path, provider_session: FakeProvider) -> Iterator[LiveService]:
    env = {
        **fake_model_env(provider_session),
        "JUDGE_SERVE_API_KEYS": KEY,
        "JUDGE_SERVE_ADMIN_KEYS": ADMIN,
        "JUDGE_SERVE_METRICS_NEED_KEY": "false",
        "JUDGE_SERVE_INLINE_WORKERS": "1",
    }
    with live_service(env, module_tmp / "svc") as s:
        yield s


@pytest.fixture
def client(svc: LiveService) -> Iterator[httpx.Client]:
    with svc.client(headers={"Authorization": f"Bearer {ADMIN}"}) as c:
        yield c


def submissions(text: str) -> float:
    return metric_value(text, "judge_submissions_total")


def test_batch_items_are_counted_and_metrics_can_be_open(
    svc: LiveService, client: httpx.Client
) -> None:
    with svc.client() as scraper:  # no key: JUDGE_SERVE_METRICS_NEED_KEY=false
        before = submissions(scraper.get("/metrics").text)
        r = client.post("/v1/batches", json=make_items(2))
        assert r.status_code == 202, r.text
        batch = r.json()["id"]
        deadline = time.monotonic() + 120  # a hang guard
        while client.get(f"/v1/batches/{batch}").json()["status"] != "done":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        after = scraper.get("/metrics")
        assert after.status_code == 200
        assert submissions(after.text) == before + 2


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/score", {"prompt": "p", "images": []}, "task"),
        ("/v1/batches", {"items": [{"prompt": "p"}]}, "items[0].task"),
        ("/v1/memories/avt-image/search", {}, "text"),
        ("/v1/memories/new-one/exemplars", {}, "exemplars"),
        ("/v1/probes", {"backend": "card"}, "topic"),
        ("/v1/studies", {}, "id"),
    ],
)
def test_a_missing_field_is_400_on_every_route(
    client: httpx.Client, path: str, body: dict, field: str
) -> None:
    err = assert_error(client.post(path, json=body), 400, field)
    assert err["code"] == "invalid_input"


def test_the_415_of_batches_names_every_type_it_takes(client: httpx.Client) -> None:
    r = client.post("/v1/batches", content=b"x", headers={"content-type": "text/plain"})
    err = assert_error(r, 415, "content-type")
    assert "application/x-ndjson" in err["message"] and "multipart" in err["message"]
    r = client.post("/v1/score", content=b"x", headers={"content-type": "text/plain"})
    assert "ndjson" not in assert_error(r, 415, "content-type")["message"]


def test_a_checklist_item_needs_no_id_through_the_service(client: httpx.Client) -> None:
    task = {
        "id": "t",
        "category": "CO",
        "brief": "a red cube",
        "checklist": [{"primitive": "hard_constraint", "image_check": "The cube is red."}],
    }
    r = client.post("/v1/score", json={"task": task, "prompt": "a red cube", "images": []})
    assert r.status_code == 200, r.text
    assert [i["id"] for i in r.json()["objective"]["prompt"]["items"]] in ([], ["c1"])


def test_a_misspelt_field_is_named_with_the_field_it_misspells(client: httpx.Client) -> None:
    """``promt`` beside a missing ``prompt``: the answer names the typo and the right name,
    not only "prompt is required"."""
    task = {"id": "t", "category": "OE", "brief": "a red cube"}
    r = client.post("/v1/score", json={"task": task, "promt": "a cube"})
    err = assert_error(r, 400, "promt")
    assert "did you mean 'prompt'?" in err["message"]
