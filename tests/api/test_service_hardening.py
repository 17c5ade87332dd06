"""Service hardening on a live server: request ids, route labels, readiness after warm-up,
the local backend as an operator opt-in, the per-request pixel limit, batch self-healing,
and the rate limit (batch cost, polling budget, wrong-key throttling)."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis.asyncio as aredis
from PIL import Image

from api.health import readiness
from api.jobs.store import BatchStore, owner_tag
from api.state import state_of
from tests.api.conftest import LiveService, assert_error, live_service, metric_value
from tests.api.test_batches import make_items
from tests.api.test_service import fake_model_env
from tests.conftest import submission
from tests.fakes.clock import FakeClock
from tests.fakes.provider import FakeProvider


def png_url(side: int, color: str = "red") -> str:
    buf = io.BytesIO()
    Image.new("RGB", (side, side), color).save(buf, "PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


@pytest.fixture(scope="module")
def svc(module_tmp: Path, provider_session: FakeProvider) -> Iterator[LiveService]:
    env = {
        **fake_model_env(provider_session),
        "JUDGE_SERVE_INLINE_WORKERS": "1",
        "JUDGE_SERVE_RECONCILE_INTERVAL_S": "1",
        "JUDGE_SERVE_MAX_REQUEST_PIXELS": "100000",
    }
    with live_service(env, module_tmp / "svc") as s:
        yield s


@pytest.fixture
def client(svc: LiveService) -> Iterator[httpx.Client]:
    with svc.client() as c:
        yield c


@pytest.mark.parametrize(
    "given",
    ["x" * 10_000, "<script>alert(1)</script>", "a b", "x" * 65, "id\u00e9", ""],
    ids=["10kB", "markup", "space", "65-chars", "non-ascii", "empty"],
)
def test_unsafe_request_ids_are_replaced(client: httpx.Client, given: str) -> None:
    r = client.get("/healthz", headers={"x-request-id": given.encode("utf-8")})
    rid = r.headers["x-request-id"]
    assert rid != given and len(rid) == 16 and rid.isalnum()


def test_safe_request_ids_are_kept(client: httpx.Client) -> None:
    for rid in ("abc", "A.b_c-1", "x" * 64):
        assert client.get("/healthz", headers={"x-request-id": rid}).headers["x-request-id"] == rid


def test_docs_routes_have_their_own_metrics_label(client: httpx.Client) -> None:
    for path in ("/docs", "/openapi.json"):
        assert client.get(path).status_code == 200
    text = client.get("/metrics").text
    for path in ("/docs", "/openapi.json"):
        assert metric_value(text, "judge_requests_total", {"route": path}) >= 1, path
    before = metric_value(text, "judge_requests_total", {"route": "unmatched"})
    client.get("/no/such/route")
    after = metric_value(
        client.get("/metrics").text, "judge_requests_total", {"route": "unmatched"}
    )
    assert after == before + 1


def test_a_request_cannot_force_the_local_backend(client: httpx.Client) -> None:
    body = {"submission": submission(prompt="local?"), "options": {"backend": "local"}}
    err = assert_error(client.post("/v1/score", json=body), 400, "options.backend")
    assert "JUDGE_SERVE_ALLOW_LOCAL_BACKEND" in err["message"]
    r = client.post("/v1/batches", json={"items": [submission()], "options": {"backend": "local"}})
    assert assert_error(r, 400, "options.backend") == err  # the same answer as /v1/score
    r = client.post("/v1/batches", json=[submission(), body])
    assert_error(r, 400, "items[1].options.backend")
    ok = {"submission": submission(prompt=f"llm {uuid.uuid4().hex}"), "options": {"backend": "llm"}}
    assert client.post("/v1/score", json=ok).status_code == 200


def test_the_pixels_of_a_request_are_limited_in_sum(client: httpx.Client) -> None:
    """Each 200x200 image is far under the per-image limit; three of them are over the
    request's 100 000 pixels, and the error names the image that crossed it."""
    sub = submission(n_images=3, prompt=f"pixels {uuid.uuid4().hex}")
    sub["images"] = [png_url(200, c) for c in ("red", "green", "blue")]
    err = assert_error(client.post("/v1/score", json=sub), 400, "images[2]")
    assert "100000 pixels in total" in err["message"]
    sub["images"] = sub["images"][:2]
    assert client.post("/v1/score", json=sub).status_code == 200


def test_a_batch_stored_but_never_queued_is_queued_by_the_reconciler(svc: LiveService) -> None:
    """The API 'crashes' between storing a batch and queueing its jobs (we store it the same
    way and stop there): the reconciler queues it and it completes."""

    items = [json.dumps(item) for item in make_items(3)]

    async def store_only() -> str:
        client = aredis.Redis.from_url(svc.redis_url)
        try:
            return await BatchStore(client, ttl_s=3600).create(items, {}, owner_tag("anonymous"))
        finally:
            await client.aclose()

    batch_id = asyncio.run(store_only())
    deadline = time.monotonic() + 240  # a hang guard, not a speed check
    with svc.client() as c:
        while time.monotonic() < deadline:
            info = c.get(f"/v1/batches/{batch_id}").json()
            if info["status"] == "done":
                break
            time.sleep(0.5)
    assert info["status"] == "done" and info["done"] == 3, info


def test_readyz_waits_for_the_engine_warm_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    real = readiness.warm_engine

    def slow_warm(judge: object) -> None:
        release.wait(60)
        real(judge)

    monkeypatch.setattr(readiness, "warm_engine", slow_warm)
    with live_service({}, tmp_path, wait_warm=False) as s, s.client() as c:
        r = c.get("/readyz")
        assert r.status_code == 503
        assert r.json()["checks"] == {"redis": "ok", "engine": "warming"}
        assert c.get("/healthz").status_code == 200
        release.set()
        deadline = time.monotonic() + 240  # a hang guard, not a speed check
        while c.get("/readyz").status_code != 200 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert c.get("/readyz").json() == {
            "status": "ok",
            "checks": {"redis": "ok", "engine": "ok"},
        }


# -- rate limits -----------------------------------------------------------------------------


def test_batches_cost_their_items_polling_has_its_own_budget_and_wrong_keys_are_throttled(
    tmp_path: Path, provider_session: FakeProvider
) -> None:
    env = {
        **fake_model_env(provider_session),
        "JUDGE_SERVE_API_KEYS": "a,b",
        "JUDGE_SERVE_RATE_LIMIT_PER_MINUTE": "5",
        "JUDGE_SERVE_POLL_RATE_LIMIT_PER_MINUTE": "30",
        "JUDGE_SERVE_AUTH_FAILURES_PER_MINUTE": "3",
    }
    clock = FakeClock.at(minute_second=5)  # the budgets are the clock's whole minutes
    with live_service(env, tmp_path, clock=clock) as s:
        with s.client(headers={"Authorization": "Bearer a"}) as a:
            r = a.post("/v1/batches", json=make_items(10))
            assert r.status_code == 429, r.text  # 10 items > 5 per minute
            assert r.json()["error"]["code"] == "rate_limited"
            r = a.post("/v1/batches", json=make_items(3))
            assert r.status_code == 202, r.text  # the refused batch cost one request
            batch_id = r.json()["id"]
            assert a.get("/v1/skills").status_code == 200
            assert a.get("/v1/skills").status_code == 429  # 1 + 3 + 1 spent
            polls = [a.get(f"/v1/batches/{batch_id}").status_code for _ in range(10)]
            assert polls == [200] * 10, "polling draws from its own budget"
        with s.client(headers={"Authorization": "Bearer b"}) as b:
            assert b.get("/v1/skills").status_code == 200, "budgets are per key"
        with s.client(headers={"Authorization": "Bearer wrong"}) as bad:
            codes = [bad.get("/v1/skills").status_code for _ in range(5)]
            assert codes == [401, 401, 401, 429, 429]
            assert bad.get("/healthz").status_code == 200
            clock.advance(60)  # the next minute: wrong keys are checked (and refused) again
            assert bad.get("/v1/skills").status_code == 401


def test_a_full_decoding_budget_answers_503_with_retry_after(svc: LiveService) -> None:
    """Another request holds the whole budget: this one waits ``decode_wait_s``, then 503."""
    from judge.io.pixel_budget import PixelBudget

    state = state_of(svc.app)
    saved_budget, saved_wait = state.pixel_budget, state.settings.decode_wait_s
    full = PixelBudget(1_000_000)
    full.acquire(1_000_000, wait_s=1)
    state.pixel_budget, state.settings.decode_wait_s = full, 0.2
    try:
        with svc.client() as c:
            sub = submission(prompt=f"busy {uuid.uuid4().hex}")
            r = c.post("/v1/score", json=sub)
        assert r.status_code == 503, r.text
        assert r.json()["error"]["code"] == "busy"
        assert int(r.headers["retry-after"]) > 0
    finally:
        state.pixel_budget, state.settings.decode_wait_s = saved_budget, saved_wait
