"""The HTTP service end to end: a real uvicorn server on loopback, real Redis, the fake
provider through litellm.

Each test makes its requests unique by content (a fresh prompt), so the shared Redis cache
of the module's server never couples two tests.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from api.core.redis_embedded import EmbeddedRedis
from api.state import state_of
from judge.cli.main import main as judge_main
from judge.domain.result import Result
from tests.api.conftest import (
    REPO,
    LiveService,
    assert_error,
    copy_shipped_memory,
    free_port,
    live_service,
    metric_value,
)
from tests.conftest import png_data_url, submission
from tests.fakes.clock import FakeClock
from tests.fakes.provider import FakeProvider

PROMPT_DIMS = {
    "creative_elaboration",
    "instructional_clarity",
    "intent_formalization",
    "terminology_proficiency",
}


def fake_model_env(provider: FakeProvider) -> dict[str, str]:
    return {
        "JUDGE_MODEL": "openai/fake-judge",
        "JUDGE_API_BASE": provider.base_url,
        "JUDGE_API_KEY": "test-key",
        "JUDGE_BACKOFF_BASE_S": "0.001",
        "JUDGE_BACKOFF_MAX_S": "0.01",
        "JUDGE_TIMEOUT_S": "60",  # a hang guard, not a speed check
    }


def unique(text: str = "a red cube") -> str:
    return f"{text} #{uuid.uuid4().hex[:10]}"


@pytest.fixture(scope="module")
def service(module_tmp: Path, provider_session: FakeProvider) -> Iterator[LiveService]:
    """No REDIS_URL: the app starts its own redis-server under JUDGE_DATA_DIR."""
    provider_session.reset()
    memories = module_tmp / "memories"
    memories.mkdir()
    copy_shipped_memory("avt-image", memories)
    env = {**fake_model_env(provider_session), "JUDGE_MEMORY_DIR": str(memories)}
    with live_service(env, module_tmp / "data") as svc:
        yield svc


@pytest.fixture
def client(service: LiveService) -> Iterator[httpx.Client]:
    with service.client() as c:
        yield c


def metrics_text(client: httpx.Client) -> str:
    r = client.get("/metrics")
    assert r.status_code == 200
    return r.text


# -- POST /v1/score --------------------------------------------------------------------------------


def check_result_contract(body: dict) -> None:
    """The Result contract of docs/design.md#submission-and-result-mode-score."""
    Result.model_validate(body)
    assert body["submission_id"]
    assert body["status"] in {"scored", "partial", "blocked"}
    assert isinstance(body["safety"]["passed"], bool)
    assert set(body["subjective"]) == {"prompt", "image"}
    assert set(body["objective"]) == {"prompt", "image"}
    for dim in body["subjective"]["prompt"].values():
        assert "score" in dim
        if dim["score"] is None:
            assert dim["reason"]
        else:
            assert 1 <= dim["score"] <= 5
    for side in body["objective"].values():
        assert {"rate", "scored", "items"} <= set(side)
        for item in side["items"]:
            assert "id" in item and "verdict" in item
            if item["verdict"] is None:
                assert item["reason"]
    prov = body["provenance"]
    assert {"judge_models", "skills", "memories"} <= set(prov)
    assert {
        "llm_calls",
        "prompt_tokens",
        "completion_tokens",
        "cost_usd",
        "cache_hits",
        "latency_s",
    } <= set(body["usage"])


def test_score_bare_submission_returns_a_result(
    client: httpx.Client, provider_session: FakeProvider
) -> None:
    before = provider_session.calls
    sub = submission(prompt=unique())
    r = client.post("/v1/score", json=sub)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    check_result_contract(body)
    assert body["status"] == "scored"
    assert body["task_id"] == "co_1"
    assert set(body["subjective"]["prompt"]) == PROMPT_DIMS
    assert body["subjective"]["image"], "an image was sent, so the image side is scored"
    assert [i["id"] for i in body["objective"]["prompt"]["items"]] == ["c1", "c2", "c3"]
    assert body["objective"]["prompt"]["scored"] == 3
    assert body["provenance"]["judge_models"] == ["openai/fake-judge"]
    assert body["usage"]["llm_calls"] > 0
    assert body["usage"]["cache_hits"] == 0
    assert provider_session.calls - before == body["usage"]["llm_calls"]


def test_score_wrapped_form_applies_options(
    client: httpx.Client, provider_session: FakeProvider
) -> None:
    sub = submission(prompt=unique(), n_checks=2)
    r = client.post(
        "/v1/score",
        json={
            "submission": sub,
            "options": {"retrieval": "none", "checkpoint_batching": "per_modality"},
        },
    )
    assert r.status_code == 200, r.text
    body = r.json()
    check_result_contract(body)
    assert body["provenance"]["options"]["retrieval"] == "none"
    assert body["provenance"]["options"]["checkpoint_batching"] == "per_modality"
    assert [i["id"] for i in body["objective"]["image"]["items"]] == ["c1", "c2"]


def test_wrapped_form_with_empty_options(client: httpx.Client) -> None:
    r = client.post("/v1/score", json={"submission": submission(prompt=unique())})
    assert r.status_code == 200, r.text
    check_result_contract(r.json())


def test_unscored_dimensions_keep_a_null_score_with_a_reason(client: httpx.Client) -> None:
    """§7: ``score``/``verdict`` null means unscored, always with a reason — the null is
    part of the contract, so the API must not drop it from the JSON."""
    r = client.post("/v1/score", json=submission(prompt=unique(), n_images=0))
    assert r.status_code == 200, r.text
    image_dims = r.json()["subjective"]["image"]
    assert image_dims
    for name, dim in image_dims.items():
        assert "score" in dim, f"subjective.image.{name} has no 'score' key: {dim}"
        assert dim["score"] is None
        assert dim["reason"]


def test_second_identical_request_is_served_from_the_redis_cache(
    service: LiveService, client: httpx.Client, provider_session: FakeProvider
) -> None:
    sub = submission(prompt=unique("cache probe"))
    first = client.post("/v1/score", json=sub)
    assert first.status_code == 200, first.text
    calls_after_first = provider_session.calls
    hits_before = metric_value(metrics_text(client), "judge_cache_hits_total")

    second = client.post("/v1/score", json=sub)
    assert second.status_code == 200, second.text
    usage = second.json()["usage"]
    assert usage["cache_hits"] > 0
    assert usage["llm_calls"] == 0
    assert provider_session.calls == calls_after_first, "the provider was called again"
    assert second.json()["subjective"] == first.json()["subjective"]
    assert second.json()["objective"] == first.json()["objective"]
    hits_after = metric_value(metrics_text(client), "judge_cache_hits_total")
    assert hits_after - hits_before == usage["cache_hits"]

    # the cache lives in Redis (not in the process): empty Redis, and the provider is asked again
    with redis.Redis.from_url(service.redis_url) as r:
        assert r.dbsize() > 0
        r.flushdb()
    third = client.post("/v1/score", json=sub)
    assert third.status_code == 200
    assert third.json()["usage"]["cache_hits"] == 0
    assert provider_session.calls > calls_after_first


def test_embedded_redis_runs_under_the_data_folder_for_its_owner_only(
    service: LiveService,
) -> None:
    """Issue 22, finding 5: no TCP port, an owner-only unix socket, CONFIG and other admin
    commands renamed away (so nobody can point SAVE at a file of their choosing)."""
    folder = service.data_dir / "redis"
    assert service.redis_url == f"unix://{(folder / 'redis.sock').resolve()}?db=0"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "redis.sock").stat().st_mode) & 0o077 == 0
    with redis.Redis.from_url(service.redis_url) as r:
        assert r.ping()
        for command in (
            ("CONFIG", "SET", "dir", "/tmp"),
            ("CONFIG", "GET", "dir"),
            ("DEBUG", "SLEEP", "0"),
        ):
            with pytest.raises(redis.ResponseError, match="unknown command"):
                r.execute_command(*command)
        info = r.info("server")
        assert Path(info["executable"]).name.startswith("redis-server")
        assert int(info["tcp_port"]) == 0, "the embedded Redis listens on no TCP port"
        assert (folder / "appendonly.aof").exists()


# -- skills and memories ---------------------------------------------------------------------------


def test_skills_lists_the_cards(client: httpx.Client) -> None:
    r = client.get("/v1/skills")
    assert r.status_code == 200
    cards = {c["name"]: c for c in r.json()}
    assert set(cards) >= PROMPT_DIMS
    card = cards["instructional_clarity"]
    assert card["modality"] == "prompt"
    assert card["enabled"] is True
    assert card["version"]
    assert set(card) == {
        "name",
        "kind",
        "version",
        "modality",
        "categories",
        "dimensions",
        "memory",
        "enabled",
    }
    assert cards["avt_appeal"]["memory"] == "avt-image"


def test_memories_list_get_and_image_search(client: httpx.Client) -> None:
    r = client.get("/v1/memories")
    assert r.status_code == 200
    manifests = {m["name"]: m for m in r.json()}
    assert manifests["avt-image"]["modality"] == "image"
    assert manifests["avt-image"]["count"] == 75

    r = client.get("/v1/memories/avt-image")
    assert r.status_code == 200
    assert r.json()["encoder"]["spec"] == "efficientnet-lite0"

    r = client.post(
        "/v1/memories/avt-image/search", json={"image": png_data_url("blue", (64, 64)), "k": 3}
    )
    assert r.status_code == 200, r.text
    hits = r.json()
    assert len(hits) == 3
    assert all(set(h) == {"id", "similarity"} and -1 <= h["similarity"] <= 1 for h in hits)
    sims = [h["similarity"] for h in hits]
    assert sims == sorted(sims, reverse=True)

    assert_error(client.get("/v1/memories/no-such-memory"), 404, "name")


def test_add_prompt_exemplars_then_search(service: LiveService, client: httpx.Client) -> None:
    name = f"prompts-{uuid.uuid4().hex[:8]}"
    texts = [
        "A four-panel comic strip about a sleepy office worker and a red alarm clock",
        "Watercolour landscape of misty mountains at sunrise, soft pastel palette",
        "Cyberpunk street market at night in the rain, neon signs, reflections",
    ]
    exemplars = [
        {
            "id": f"p{i}",
            "category": "CO",
            "modality": "prompt",
            "prompt": text,
            "scores": {"instructional_clarity": 2 + i},
        }
        for i, text in enumerate(texts)
    ]
    r = client.post(f"/v1/memories/{name}/exemplars", json={"exemplars": exemplars})
    assert r.status_code == 200, r.text
    assert r.json()["name"] == name
    assert r.json()["count"] == 3
    assert r.json()["modality"] == "prompt"
    memory_dir = Path(state_of(service.app).judge.store.root)
    assert (memory_dir / name / "CURRENT").is_file()
    assert memory_dir.is_relative_to(service.data_dir.parent), "not the tmp JUDGE_MEMORY_DIR"

    r = client.post(
        f"/v1/memories/{name}/search",
        json={"text": "misty mountains painted in watercolour at dawn", "k": 2},
    )
    assert r.status_code == 200, r.text
    hits = r.json()
    assert hits[0]["id"] == "p1"
    assert len(hits) == 2

    more = [{"id": "p9", "modality": "prompt", "prompt": "A tiny bakery", "scores": {"x": 3}}]
    r = client.post(f"/v1/memories/{name}/exemplars", json={"exemplars": more})
    assert r.status_code == 200, r.text
    assert r.json()["count"] == 4
    names = {m["name"] for m in client.get("/v1/memories").json()}
    assert {name, "avt-image"} <= names

    # an id that is already there is refused, naming the field
    assert_error(
        client.post(f"/v1/memories/{name}/exemplars", json={"exemplars": more}),
        400,
        "exemplars",
    )


def test_search_of_the_wrong_modality_names_the_request_field(client: httpx.Client) -> None:
    """Text sent to an image memory: the field at fault is ``text`` (the request's field)."""
    r = client.post("/v1/memories/avt-image/search", json={"text": "a sunset"})
    assert_error(r, 400, "text")


# -- health, readiness, metrics, docs, request ids -------------------------------------------------


def test_health_ready_docs(client: httpx.Client) -> None:
    r = client.get("/healthz")
    assert r.status_code == 200 and r.json()["status"] == "ok"
    deadline = time.monotonic() + 240  # a hang guard: ready once the engine has warmed up
    while client.get("/readyz").status_code != 200 and time.monotonic() < deadline:
        time.sleep(0.1)
    r = client.get("/readyz")
    assert r.status_code == 200
    assert r.json() == {"status": "ok", "checks": {"redis": "ok", "engine": "ok"}}
    r = client.get("/openapi.json")
    assert r.status_code == 200
    paths = r.json()["paths"]
    assert {"/v1/score", "/v1/skills", "/v1/memories", "/healthz", "/readyz", "/metrics"} <= set(
        paths
    )
    assert "post" in paths["/v1/score"]
    r = client.get("/docs")
    assert r.status_code == 200
    assert "text/html" in r.headers["content-type"]
    assert "openapi.json" in r.text


def test_metrics_exposes_the_service_series(
    client: httpx.Client, provider_session: FakeProvider
) -> None:
    before = metrics_text(client)
    r = client.post("/v1/score", json=submission(prompt=unique("metrics")))
    assert r.status_code == 200
    llm_calls = r.json()["usage"]["llm_calls"]
    resp = client.get("/metrics")
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith("text/plain")
    after = resp.text
    for series in (
        "judge_requests_total",
        "judge_request_seconds_bucket",
        "judge_provider_calls_total",
        "judge_cache_hits_total",
        "judge_queue_depth",
    ):
        assert any(line.startswith(series) for line in after.splitlines()), series
    score_200 = {"route": "/v1/score", "method": "POST", "status": "200"}
    assert (
        metric_value(after, "judge_requests_total", score_200)
        - metric_value(before, "judge_requests_total", score_200)
        == 1
    )
    assert metric_value(after, "judge_request_seconds_count", {"route": "/v1/score"}) >= 1
    assert (
        metric_value(after, "judge_provider_calls_total")
        - metric_value(before, "judge_provider_calls_total")
        == llm_calls
    )


def test_every_response_has_a_request_id(client: httpx.Client) -> None:
    responses = [
        client.get("/healthz"),
        client.get("/v1/skills"),
        client.get("/no/such/route"),
        client.post("/v1/score", json={"prompt": 1}),
        client.post("/v1/score", content=b"{nope", headers={"content-type": "application/json"}),
        client.get("/metrics"),
        client.get("/openapi.json"),
    ]
    ids = [r.headers.get("x-request-id") for r in responses]
    assert all(ids), [(r.request.url.path, r.status_code) for r in responses]
    assert len(set(ids)) == len(ids)

    mine = f"client-{uuid.uuid4().hex}"
    assert client.get("/healthz", headers={"x-request-id": mine}).headers["x-request-id"] == mine
    r = client.post("/v1/score", json={"prompt": 1}, headers={"X-Request-ID": mine})
    assert r.status_code in (400, 422)
    assert r.headers["x-request-id"] == mine


def test_request_logs_are_structured_json(
    client: httpx.Client, caplog: pytest.LogCaptureFixture
) -> None:
    rid = f"log-{uuid.uuid4().hex}"
    with caplog.at_level(logging.INFO, logger="judge.api"):
        assert client.get("/v1/skills", headers={"x-request-id": rid}).status_code == 200
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not any(rid in m for m in caplog.messages):
            time.sleep(0.02)
    lines = [json.loads(m) for m in caplog.messages if rid in m]
    assert lines, caplog.messages
    entry = lines[0]
    assert entry["request_id"] == rid
    assert entry["route"] == "/v1/skills"
    assert entry["method"] == "GET"
    assert entry["status"] == 200
    assert entry["seconds"] >= 0


def test_readyz_is_503_when_redis_goes_away(tmp_path: Path) -> None:
    """With REDIS_URL given the app uses that Redis; stop it and the service is not ready."""
    embedded = EmbeddedRedis(tmp_path / "own-redis")
    url = embedded.start()
    try:
        with (
            live_service({"REDIS_URL": url}, tmp_path / "data") as svc,
            svc.client(timeout=20) as c,
        ):
            assert svc.redis_url == url
            assert not (tmp_path / "data" / "redis").exists(), "started a second Redis"
            deadline = time.monotonic() + 240  # a hang guard: ready once the engine has warmed up
            while c.get("/readyz").status_code != 200 and time.monotonic() < deadline:
                time.sleep(0.1)
            assert c.get("/readyz").status_code == 200
            embedded.stop()
            r = c.get("/readyz")
            assert r.status_code == 503
            body = r.json()
            assert body["status"] == "unavailable"
            assert body["checks"]["redis"].startswith("error")
            assert c.get("/healthz").status_code == 200
            assert c.get("/metrics").status_code == 200
    finally:
        embedded.stop()


# -- authentication and rate limits ----------------------------------------------------------------


@pytest.fixture(scope="module")
def auth_service(module_tmp: Path, provider_session: FakeProvider) -> Iterator[LiveService]:
    env = {**fake_model_env(provider_session), "JUDGE_SERVE_API_KEYS": "k1, k2"}
    with live_service(env, module_tmp / "auth") as svc:
        yield svc


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer wrong"},
        {"Authorization": "Bearer"},
        {"Authorization": "Basic k1"},
        {"Authorization": "k1"},
        {"Authorization": "Bearer k1,k2"},
    ],
    ids=["missing", "wrong", "empty", "basic", "no-scheme", "both-keys"],
)
def test_v1_needs_a_valid_bearer(auth_service: LiveService, headers: dict[str, str]) -> None:
    with auth_service.client(headers=headers) as c:
        for method, path, body in (
            ("GET", "/v1/skills", None),
            ("GET", "/v1/memories", None),
            ("POST", "/v1/score", submission(prompt=unique())),
            ("POST", "/v1/memories/x/search", {"text": "a"}),
        ):
            r = c.request(method, path, json=body)
            assert_error(r, 401, "Authorization")
            assert r.headers.get("www-authenticate", "").lower().startswith("bearer")
            assert r.headers.get("x-request-id")


def test_right_bearer_is_accepted(auth_service: LiveService) -> None:
    with auth_service.client(headers={"Authorization": "Bearer k2"}) as c:
        assert c.get("/v1/skills").status_code == 200
        assert c.get("/v1/memories").status_code == 200
        r = c.post("/v1/score", json=submission(prompt=unique("auth")))
        assert r.status_code == 200, r.text
        check_result_contract(r.json())
    with auth_service.client(headers={"Authorization": "bearer k1"}) as c:
        assert c.get("/v1/skills").status_code == 200


def test_probes_and_docs_stay_open_with_auth(auth_service: LiveService) -> None:
    with auth_service.client() as c:
        assert c.get("/healthz").status_code == 200
        assert c.get("/readyz").status_code == 200
        assert c.get("/openapi.json").status_code == 200
        # /metrics needs a key on a keyed service (JUDGE_SERVE_METRICS_NEED_KEY, issue 38 item 7)
        assert c.get("/metrics").status_code == 401
        assert c.get("/metrics", headers={"Authorization": "Bearer k1"}).status_code == 200


def test_rate_limit_answers_429_with_retry_after(tmp_path: Path) -> None:
    env = {"JUDGE_SERVE_API_KEYS": "a,b", "JUDGE_SERVE_RATE_LIMIT_PER_MINUTE": "3"}
    clock = FakeClock.at(minute_second=15)  # the windows are the clock's whole minutes
    with live_service(env, tmp_path, clock=clock) as svc:
        with svc.client(headers={"Authorization": "Bearer a"}) as a:
            codes = [a.get("/v1/skills").status_code for _ in range(3)]
            assert codes == [200, 200, 200]
            r = a.get("/v1/skills")
            assert r.status_code == 429
            assert r.json()["error"]["code"] == "rate_limited"
            assert r.headers["retry-after"] == "45"
            assert r.headers.get("x-request-id")
            assert a.get("/healthz").status_code == 200
            clock.advance(45)  # the next minute: a new budget
            assert a.get("/v1/skills").status_code == 200
        with svc.client(headers={"Authorization": "Bearer b"}) as b:
            assert b.get("/v1/skills").status_code == 200, "the limit is per key"
        with svc.client(headers={"Authorization": "Bearer nope"}) as bad:
            assert bad.get("/v1/skills").status_code == 401


# -- judge serve -----------------------------------------------------------------------------------


def _clear_bind_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "JUDGE_SERVE_API_KEYS",
        "JUDGE_SERVE_ALLOW_OPEN_PUBLIC",
        "JUDGE_SERVE_HOST",
        "JUDGE_SERVE_PORT",
    ):
        monkeypatch.delenv(name, raising=False)


def test_serve_refuses_a_public_bind_without_keys(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _clear_bind_env(monkeypatch)
    assert judge_main(["serve", "--host", "0.0.0.0", "--port", str(free_port())]) == 2
    err = capsys.readouterr().err
    assert "refusing to serve on 0.0.0.0" in err
    assert "JUDGE_SERVE_API_KEYS" in err


def test_serve_open_public_notice_does_not_claim_loopback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Deliberately open (JUDGE_SERVE_ALLOW_OPEN_PUBLIC) on 0.0.0.0: the notice must not say the
    service is loopback only. uvicorn.run is replaced, so nothing is bound."""
    import uvicorn

    _clear_bind_env(monkeypatch)
    monkeypatch.setenv("JUDGE_SERVE_ALLOW_OPEN_PUBLIC", "true")
    monkeypatch.setenv("JUDGE_DATA_DIR", str(tmp_path))
    ran: list[dict] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: ran.append(kw))
    assert judge_main(["serve", "--host", "0.0.0.0", "--port", "18080"]) == 0
    assert ran and ran[0]["host"] == "0.0.0.0"
    err = capsys.readouterr().err
    assert "open to anyone" in err
    assert "loopback only" not in err


@pytest.mark.slow
def test_serve_without_keys_on_loopback_says_so(tmp_path: Path) -> None:
    port = free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("JUDGE_") and k not in ("REDIS_URL",)
    }
    env.update(
        JUDGE_DATA_DIR=str(tmp_path / "data"),
        JUDGE_MEMORY_DIR=str(tmp_path / "memories"),
        PYTHONPATH=str(REPO),
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "judge.cli.main", "serve", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stderr or []), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 240  # a hang guard, not a speed check
        ready = False
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                ready = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200
            except httpx.TransportError:
                ready = False
            if ready:
                break
            time.sleep(0.1)
        assert ready, "".join(lines)
        # no keys → /v1 is open (to loopback callers)
        assert httpx.get(f"http://127.0.0.1:{port}/v1/skills", timeout=10).status_code == 200
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        reader.join(timeout=5)
    err = "".join(lines)
    notice = [line for line in err.splitlines() if "open to anyone" in line]
    assert notice, err
    assert f"127.0.0.1:{port}" in notice[0]
    assert "loopback only" in notice[0]
    assert (tmp_path / "data" / "redis").is_dir(), "the embedded Redis keeps its data there"
