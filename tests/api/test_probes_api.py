"""``/v1/probes`` on a live service with real Redis: a scripted fake LLM + judge
(:mod:`tests.fakes.probing_script`) and server-configured T2I backends (``JUDGE_BACKENDS``)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import LiveService, assert_error, live_service
from tests.fakes.probing_script import ProbeScript
from tests.fakes.provider import FakeProvider

SMALL = {"depth": 2, "topics": 2, "inputs": 2, "images": 1}


@pytest.fixture(scope="module")
def fakes() -> Iterator[tuple[FakeProvider, FakeProvider]]:
    # the backend's key variable is read when an image is generated, not only at start-up
    os.environ["PROBE_TEST_IMAGE_KEY"] = "k"
    with FakeProvider() as llm, FakeProvider() as images:
        ProbeScript().install(llm.responder)
        images.set_fault_rate(1.0, ["refusal"])
        yield llm, images
    os.environ.pop("PROBE_TEST_IMAGE_KEY", None)


def service_env(llm: FakeProvider, images: FakeProvider, tmp: Path) -> dict[str, str]:
    backends = tmp / "backends.toml"
    backends.write_text(
        '[[backends]]\nid = "card"\nmodel = "builtin/renderer"\n\n'
        f'[[backends]]\nid = "refuser"\nmodel = "openai/fake-image"\napi_base = "{images.base_url}"'
        '\napi_key_env = "PROBE_TEST_IMAGE_KEY"\nmax_retries = 0\n'
    )
    return {
        "JUDGE_MODEL": "openai/fake-judge",
        "JUDGE_API_BASE": llm.base_url,
        "JUDGE_API_KEY": "test-key",
        "JUDGE_BACKOFF_BASE_S": "0.001",
        "JUDGE_TIMEOUT_S": "60",  # a hang guard, not a speed check
        "JUDGE_SAFETY": "false",
        "JUDGE_BACKENDS": str(backends),
        "PROBE_TEST_IMAGE_KEY": "k",
        "JUDGE_SERVE_INLINE_WORKERS": "1",  # probes run as jobs: here on the API's inline worker
    }


@pytest.fixture(scope="module")
def service(module_tmp: Path, fakes) -> Iterator[LiveService]:
    with live_service(service_env(*fakes, module_tmp), module_tmp / "data") as svc:
        yield svc


@pytest.fixture
def client(service: LiveService) -> Iterator[httpx.Client]:
    with service.client() as c:
        yield c


def wait_done(client: httpx.Client, probe_id: str, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        body = client.get(f"/v1/probes/{probe_id}").json()
        if body["status"] != "running" or time.monotonic() > deadline:
            return body
        time.sleep(0.3)


def walk(node: dict) -> list[dict]:
    return [node] + [n for c in node["children"] for n in walk(c)]


def test_probe_runs_and_overrides_update_metrics(client: httpx.Client) -> None:
    r = client.post(
        "/v1/probes",
        json={
            "topic": "animals",
            "backend": "card",
            **SMALL,
            "threshold": 0,
            "criterion": "alignment",
        },
    )
    assert r.status_code == 202, r.text
    probe_id = r.json()["id"]
    assert client.get(f"/v1/probes/{probe_id}").json()["params"]["criterion"] == "alignment"
    listed = client.get("/v1/probes").json()["probes"]
    assert listed[0]["id"] == probe_id and listed[0]["topic"] == "animals"
    body = wait_done(client, probe_id)
    assert body["status"] == "done", body.get("error")
    tree = body["tree"]
    assert [n["id"] for n in walk(tree["root"])] == ["n0", "n0.0", "n0.1"]
    assert tree["metrics"]["n_images"] == 6 and tree["metrics"]["bugs"] == 6
    ref = tree["root"]["tests"][0]["images"][0]
    png = client.get(f"/v1/probes/{probe_id}/{ref}")
    assert png.status_code == 200 and png.content[:4] == b"\x89PNG"
    before = tree["metrics"]["apr"]
    r = client.post(
        f"/v1/probes/{probe_id}/overrides",
        json={"node": "n0", "test": 0, "image": 0, "verdict": True, "who": "ana"},
    )
    assert r.status_code == 200 and r.json()["recorded"] == 1
    after = client.get(f"/v1/probes/{probe_id}").json()["tree"]
    assert after["metrics"]["apr"] > before and after["metrics"]["bugs"] == 5
    test = after["root"]["tests"][0]
    assert test["verdicts"] == [True] and test["judge_verdicts"] == [False]
    assert test["overrides"]["0"]["who"] == "ana" and test["overrides"]["0"]["when"]
    assert after["metrics"]["agreement"]["n_compared"] == 1
    r = client.post(
        f"/v1/probes/{probe_id}/overrides",
        json={"overrides": [{"node": "n0.1", "test": 1, "image": 0, "verdict": False}]},
    )
    assert r.json()["metrics"]["agreement"]["n_overrides"] == 2
    assert_error(
        client.post(
            f"/v1/probes/{probe_id}/overrides",
            json={"node": "n9", "test": 0, "image": 0, "verdict": True},
        ),
        404,
        "overrides[0]",
    )
    assert_error(
        client.post(
            f"/v1/probes/{probe_id}/overrides",
            json={"node": "n0", "test": 0, "image": 5, "verdict": True},
        ),
        404,
        "overrides[0]",
    )
    assert_error(
        client.post(
            f"/v1/probes/{probe_id}/overrides",
            json={"node": "n0", "test": 0, "image": 0, "verdict": "maybe"},
        ),
        400,
        "overrides[0].verdict",
    )
    assert_error(
        client.post(f"/v1/probes/{probe_id}/overrides", json={"overrides": []}), 400, "overrides"
    )


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"topic": "", "backend": "card"}, 400, "topic"),
        ({"topic": "x" * 10_240, "backend": "card"}, 400, "topic"),
        ({"topic": "t", "backend": "nope"}, 400, "backend"),
        ({"topic": "t", "backend": "card", "api_base": "http://evil"}, 400, "api_base"),
        (
            {"topic": "t", "backend": "card", "backend_api_key_env": "HOME"},
            400,
            "backend_api_key_env",
        ),
        ({"topic": "t", "backend": "card", "colour": 1}, 400, "colour"),
        ({"topic": "t", "backend": "card", "depth": 99}, 400, "depth"),
        ({"topic": "t", "backend": "card", "strategy": "random"}, 400, "strategy"),
        ({"topic": "t", "backend": "card", "criterion": "vibes"}, 400, "criterion"),
        (["not", "an", "object"], 400, "(body)"),
    ],
)
def test_bad_probe_requests_are_4xx(client: httpx.Client, body, status, field) -> None:
    assert_error(client.post("/v1/probes", json=body), status, field)


def test_unknown_probe_is_404(client: httpx.Client) -> None:
    assert_error(client.get("/v1/probes/" + "0" * 32), 404, None)
    assert_error(client.get("/v1/probes/not-an-id"), 404, None)


def test_refusing_backend_is_recorded_not_a_crash(client: httpx.Client) -> None:
    r = client.post(
        "/v1/probes",
        json={
            "topic": "t",
            "backend": "refuser",
            "depth": 1,
            "inputs": 2,
            "images": 1,
            "baseline": True,
        },
    )
    body = wait_done(client, r.json()["id"])
    assert body["status"] == "done"
    tests = body["tree"]["root"]["tests"]
    assert tests and all(t["status"] == "refused" and t["reason"] for t in tests)
    assert body["tree"]["metrics"]["n_images"] == 0


@pytest.mark.slow
def test_probe_resumes_after_a_service_restart(tmp_path: Path, fakes) -> None:
    llm, images = fakes
    env = service_env(llm, images, tmp_path)
    llm.latency = 0.1
    try:
        with live_service(env, tmp_path / "data") as first, first.client() as c:
            probe_id = c.post(
                "/v1/probes", json={"topic": "animals", "backend": "card", **SMALL}
            ).json()["id"]
            deadline = time.monotonic() + 60
            while c.get(f"/v1/probes/{probe_id}").json()["tree"] is None:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        calls = llm.calls
        with live_service(env, tmp_path / "data") as second, second.client() as c:
            assert c.get(f"/v1/probes/{probe_id}").json()["status"] == "running"
            body = wait_done(c, probe_id)
    finally:
        llm.latency = 0.0
    assert body["status"] == "done", body.get("error")
    assert len(walk(body["tree"]["root"])) == 3
    assert llm.calls > calls


def test_a_probe_stored_before_an_option_existed_reads_with_its_default(
    client: httpx.Client, service: LiveService
) -> None:
    import json

    import redis

    body = {"topic": "t", "backend": "refuser", "depth": 1, "inputs": 1, "images": 1}
    probe_id = client.post("/v1/probes", json=body).json()["id"]
    wait_done(client, probe_id)
    r = redis.Redis.from_url(service.redis_url)
    (key,) = r.keys(f"*probe:{probe_id}:meta")
    stored = json.loads(r.hget(key, "params"))
    del stored["criterion"]  # as written by a service from before the option
    r.hset(key, "params", json.dumps(stored))
    assert client.get(f"/v1/probes/{probe_id}").json()["params"]["criterion"] == (
        "alignment_defects"
    )
