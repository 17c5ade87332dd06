"""The probe budget on a live service with real Redis (issue 22, findings 1 and 2): API bounds,
server-side models, a worst-case plan checked before anything starts, rate-limit units by
planned nodes, a per-key cap on running probes, ``DELETE /v1/probes/{id}`` (and the UI's stop
button), and the budget enforced while a probe runs."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from tests.api.conftest import LiveService, assert_error, live_service
from tests.api.test_probes_api import SMALL, fakes, service_env, wait_done, walk
from tests.fakes.clock import FakeClock
from tests.fakes.probing_script import ProbeScript
from tests.fakes.provider import FakeProvider

__all__ = ["fakes"]  # the module-scoped fake LLM and image providers, shared with this module

BUDGET = {
    "JUDGE_PROBE_BUDGET_IMAGES": "200",
    "JUDGE_PROBE_BUDGET_MODEL_CALLS": "300",
    "JUDGE_PROBE_MAX_RUNNING_PER_KEY": "1",
}
#: the reproduction of finding 1: 37,449 planned nodes accepted for one rate-limit unit
HUGE = {
    "topic": "t",
    "backend": "card",
    "depth": 6,
    "topics": 8,
    "inputs": 20,
    "images": 8,
    "rounds": 5,
    "baseline": True,
    "max_split_tests": 64,
}


@pytest.fixture(scope="module")
def service(module_tmp: Path, fakes) -> Iterator[LiveService]:
    with live_service({**service_env(*fakes, module_tmp), **BUDGET}, module_tmp / "d") as svc:
        yield svc


@pytest.fixture
def client(service: LiveService) -> Iterator[httpx.Client]:
    with service.client() as c:
        yield c


@pytest.fixture
def slow_llm(fakes) -> Iterator[FakeProvider]:
    llm, _ = fakes
    llm.latency = 0.3
    try:
        yield llm
    finally:
        llm.latency = 0.0


def probe_keys(service: LiveService) -> set[bytes]:
    r = redis.Redis.from_url(service.redis_url)
    try:
        return set(r.scan_iter("judge:probe*"))
    finally:
        r.close()


def refused_before_start(service: LiveService, client: httpx.Client, body: Any, status, field):
    """The request gets a 4xx naming ``field`` and nothing is stored or queued."""
    before = probe_keys(service)
    err = assert_error(client.post("/v1/probes", json=body), status, field)
    assert probe_keys(service) == before
    return err


@pytest.mark.parametrize("field", ["model", "Model", "writer_model", "judge_model"])
def test_a_client_chosen_model_is_refused(
    service: LiveService, client: httpx.Client, field: str
) -> None:
    body = {"topic": "t", "backend": "card", **SMALL, field: "openai/o1-pro-EXPENSIVE"}
    err = refused_before_start(service, client, body, 400, field)
    assert "server" in err["message"] and err["code"] == "forbidden_field"


def test_options_over_the_api_bounds_are_refused(service: LiveService, client: httpx.Client):
    err = refused_before_start(service, client, HUGE, 422, "depth")
    assert "JUDGE_PROBE_MAX_DEPTH" in err["message"]
    for option, value in [("topics", 5), ("inputs", 11), ("images", 5), ("max_split_tests", 17)]:
        body = {"topic": "t", "backend": "card", **SMALL, option: value}
        refused_before_start(service, client, body, 422, option)


def test_a_probe_over_its_budget_is_refused_before_it_starts(
    service: LiveService, client: httpx.Client
) -> None:
    body = {"topic": "t", "backend": "card", **SMALL, "images": 4}  # plans 336 images > 200
    err = refused_before_start(service, client, body, 422, "(body)")
    assert err["code"] == "over_budget"
    assert "336 images" in err["message"] and "JUDGE_PROBE_BUDGET_IMAGES" in err["message"]


def test_delete_stops_a_probe_and_keeps_what_it_measured(
    service: LiveService, client: httpx.Client, slow_llm: FakeProvider
) -> None:
    r = client.post("/v1/probes", json={"topic": "animals", "backend": "card", **SMALL})
    assert r.status_code == 202, r.text
    probe_id = r.json()["id"]
    assert r.json()["plan"]["plan"] == {"nodes": 3, "images": 84, "model_calls": 105, "usd": 1.05}
    # the per-key cap: this key has its one running probe
    second = {"topic": "u", "backend": "card", **SMALL}
    err = assert_error(client.post("/v1/probes", json=second), 429, None)
    assert err["code"] == "too_many_probes"
    deadline = time.monotonic() + 240  # a hang guard, not a speed check
    while client.get(f"/v1/probes/{probe_id}").json()["tree"] is None:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    answer = client.delete(f"/v1/probes/{probe_id}")
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"id": probe_id, "status": "cancelled", "cancelled": True}
    job = f"arq:job:probe:{probe_id}".encode()
    r = redis.Redis.from_url(service.redis_url)
    try:
        while r.exists(job) or r.exists(b"arq:in-progress:probe:" + probe_id.encode()):
            assert time.monotonic() < deadline, "the probe job did not stop"
            time.sleep(0.1)
    finally:
        r.close()
    calls = slow_llm.calls
    body = client.get(f"/v1/probes/{probe_id}").json()
    assert body["status"] == "cancelled" and body["error"] == "cancelled by its owner"
    assert body["tree"]["root"]["tests"], "what the probe measured was kept"
    assert body["budget"]["spent"]["images"] >= 1
    assert body["budget"]["spent"]["images"] < 36  # a whole run of this probe renders 36
    again = client.delete(f"/v1/probes/{probe_id}")
    assert again.json() == {"id": probe_id, "status": "cancelled", "cancelled": False}
    assert slow_llm.calls == calls  # nothing ran after the job ended
    # the cap is free again
    r2 = client.post("/v1/probes", json={"topic": "t", "backend": "refuser", **SMALL, "depth": 1})
    assert r2.status_code == 202, r2.text
    assert wait_done(client, r2.json()["id"])["status"] == "done"
    assert_error(client.delete("/v1/probes/" + "0" * 32), 404, None)


def test_the_ui_stop_button_needs_this_site(service: LiveService, slow_llm: FakeProvider) -> None:
    with service.client() as c:
        probe_id = c.post("/v1/probes", json={"topic": "cats", "backend": "card", **SMALL}).json()[
            "id"
        ]
        page = c.get(f"/ui/probes/{probe_id}")
        assert page.status_code == 200 and f'action="/ui/probes/{probe_id}/stop"' in page.text
        cross = c.post(f"/ui/probes/{probe_id}/stop", headers={"Origin": "http://evil.example"})
        assert cross.status_code == 403
        no_origin = c.post(f"/ui/probes/{probe_id}/stop")
        assert no_origin.status_code == 403
        assert c.get(f"/v1/probes/{probe_id}").json()["status"] == "running"
        ok = c.post(f"/ui/probes/{probe_id}/stop", headers={"Origin": service.base_url})
        assert ok.status_code == 303 and ok.headers["location"] == f"/ui/probes/{probe_id}"
        assert c.get(f"/v1/probes/{probe_id}").json()["status"] == "cancelled"
        assert "stop-probe" not in c.get(f"/ui/probes/{probe_id}").text


def test_the_ui_form_sends_no_model(service: LiveService) -> None:
    from api.probes.pages import form_to_options

    form = {"topic": "t", "backend": "card", "model": "openai/o1-pro-EXPENSIVE"}
    assert "model" not in form_to_options(form)
    with service.client() as c:
        form_page = c.get("/ui/probes/new").text
    assert 'name="model"' not in form_page


def test_a_probe_costs_its_planned_nodes_in_rate_limit_units(tmp_path: Path, fakes) -> None:
    env = {**service_env(*fakes, tmp_path), "JUDGE_SERVE_RATE_LIMIT_PER_MINUTE": "20"}
    small = {"topic": "t", "backend": "card", "inputs": 1, "images": 1, "localise": False}
    clock = FakeClock.at(minute_second=5)
    with live_service(env, tmp_path / "d", clock=clock) as svc, svc.client() as c:
        err = assert_error(c.post("/v1/probes", json={**small, "topics": 4}), 429, None)
        assert err["code"] == "rate_limited"  # 21 nodes: over 20 units a minute at once
        assert probe_keys(svc) == set()
        r = c.post("/v1/probes", json={**small, "topics": 2})  # 7 nodes
        assert r.status_code == 202, r.text
        tag = hashlib.sha256(b"anonymous").hexdigest()[:16]
        rr = redis.Redis.from_url(svc.redis_url)
        try:
            used = int(rr.get(f"judge:rate:req:{tag}:{int(clock() // 60)}") or 0)
        finally:
            rr.close()
        assert used == 1 + 7  # the refused probe's units were given back
        c.delete(f"/v1/probes/{r.json()['id']}")


async def test_a_running_probe_stops_at_its_budget_and_keeps_its_tree(
    tmp_path: Path, provider: FakeProvider
) -> None:
    """The job enforces the limits the probe was admitted with (here 3 images) while it runs:
    the render that would go over is not made, the probe ends ``stopped`` with its tree."""
    from redis import asyncio as aredis

    from api.core.redis_embedded import EmbeddedRedis
    from api.core.settings import ServiceSettings
    from api.probes.job import run_probe_job
    from api.probes.store import ProbeStore
    from eval.probing.params import ProbeParams
    from eval.t2i import load_backends
    from judge.config import JudgeSettings
    from judge.engine import Judge

    ProbeScript().install(provider.responder)
    backends = tmp_path / "backends.toml"
    backends.write_text('[[backends]]\nid = "card"\nmodel = "builtin/renderer"\n')
    judge = Judge(
        JudgeSettings(
            model="openai/fake-judge",
            api_base=provider.base_url,
            api_key="k",
            safety=False,
            backoff_base_s=0.001,
            timeout_s=5.0,
        )
    )
    server = EmbeddedRedis(tmp_path / "redis")
    client = aredis.Redis.from_url(server.start())
    try:
        store = ProbeStore(client, 600)
        params = ProbeParams(topic="animals", backend="card", **SMALL)
        limits = {"nodes": 40, "images": 3, "model_calls": 1000, "usd": 10.0}
        probe_id = await store.create(
            params.model_dump(), "card", "owner", plan={"plan": {}, "limits": limits}
        )
        ctx = {
            "redis": client,
            "settings": ServiceSettings(redis_url="redis://unused"),
            "judge": judge,
            "job_id": f"probe:{probe_id}",
            "lease_s": 30.0,
            "probe_backends": load_backends(backends),
        }
        assert await run_probe_job(ctx, probe_id) == "stopped"
        meta = await store.meta(probe_id)
        assert meta is not None
        assert meta.status == "stopped" and (meta.error or "").startswith("budget:")
        spent = meta.spent
        assert 1 <= spent["images"] <= 3
        tree = await store.tree(probe_id)
        rendered = [i for n in walk(tree["root"]) for t in n["tests"] for i in t["images"]]
        assert rendered and len(rendered) <= 3
        assert await store.running("owner") == 0
    finally:
        await client.aclose()
        server.stop()
