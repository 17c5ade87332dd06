"""Requests a web page could forge are refused (issue 22, findings 4 and 12): DNS-rebinding
``Host`` names on a key-less service, cross-site writes, JSON under a non-JSON content type,
and a cross-site participant sign-out. A real service on loopback with real Redis."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import LiveService, assert_error, live_service
from tests.api.study_helpers import study_body
from tests.api.test_batches import make_items
from tests.api.test_service import fake_model_env
from tests.fakes.provider import FakeProvider

EVIL = "rebind.evil.example"


def port_of(open_service: LiveService) -> str:
    return open_service.base_url.rsplit(":", 1)[1]


@pytest.mark.parametrize(
    "method, path",
    [
        ("POST", "/v1/studies"),
        ("POST", "/v1/memories/avt-image/exemplars"),
        ("GET", "/v1/studies/demo/prompts"),
        ("GET", "/v1/probes"),
        ("GET", "/ui/"),
    ],
)
def test_a_rebound_host_name_is_refused_without_keys(
    open_service: LiveService, open_client: httpx.Client, method: str, path: str
) -> None:
    host = f"{EVIL}:{port_of(open_service)}"
    headers = {"Host": host, "Origin": f"http://{host}", "content-type": "application/json"}
    r = open_client.request(
        method, path, headers=headers, content=b"{}" if method == "POST" else None
    )
    err = assert_error(r, 400, "Host")
    assert err["code"] == "host_not_allowed" and "JUDGE_SERVE_ALLOWED_HOSTS" in err["message"]


def test_loopback_names_are_served(open_service: LiveService, open_client: httpx.Client) -> None:
    for name in ("localhost", "127.0.0.1"):
        r = open_client.get("/v1/skills", headers={"Host": f"{name}:{port_of(open_service)}"})
        assert r.status_code == 200, (name, r.text[:200])


def test_a_study_is_created_with_json(open_client: httpx.Client) -> None:
    assert open_client.post("/v1/studies", json=study_body()).status_code == 201


@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded", None])
@pytest.mark.parametrize(
    "path", ["/v1/probes", "/v1/batches", "/v1/probes/" + "0" * 32 + "/overrides", "/v1/studies"]
)
def test_json_routes_refuse_bodies_not_sent_as_json(
    open_client: httpx.Client, path: str, ctype: str | None
) -> None:
    body = b'{"topic": "counting", "backend": "b"}' if "batches" not in path else b"[]"
    headers = {"content-type": ctype} if ctype else {}
    r = open_client.post(path, content=body, headers=headers)
    err = assert_error(r, 415, "content-type")
    assert "application/json" in err["message"]


def test_batches_still_take_jsonl_and_uploads(open_client: httpx.Client) -> None:
    lines = "".join(f"{json.dumps(i)}\n" for i in make_items(1))
    r = open_client.post(
        "/v1/batches", content=lines, headers={"content-type": "application/x-ndjson"}
    )
    assert r.status_code == 202, r.text
    r = open_client.post("/v1/batches", files={"file": ("items.jsonl", lines.encode())})
    assert r.status_code == 202, r.text


def test_cross_site_writes_are_refused(open_client: httpx.Client) -> None:
    headers = {"Origin": "http://evil.example", "content-type": "application/json"}
    r = open_client.post("/v1/studies", json=study_body(), headers=headers)
    assert_error(r, 403, "Origin")
    r = open_client.post("/v1/studies", json=study_body(), headers={**headers, "Origin": "null"})
    assert_error(r, 403, "Origin")


def test_participant_sign_out_checks_the_origin(
    open_service: LiveService, open_client: httpx.Client
) -> None:
    created = open_client.post("/v1/studies", json=study_body()).json()
    study, code = created["id"], created["participants"][0]
    jar = {"Cookie": f"judge_participant={code}"}
    r = open_client.post(
        f"/ui/studies/{study}/leave", headers={"Origin": "http://evil.example", **jar}
    )
    assert r.status_code == 403
    assert "set-cookie" not in r.headers, "a cross-site post must not sign the participant out"
    own = {"Origin": open_service.base_url, **jar}
    r = open_client.post(f"/ui/studies/{study}/leave", headers=own)
    assert r.status_code == 303 and "judge_participant=" in r.headers["set-cookie"]


def test_listed_host_names_are_served_and_the_ui_origin_check_uses_them(
    tmp_path: Path, provider_session: FakeProvider
) -> None:
    env = {
        **fake_model_env(provider_session),
        "JUDGE_SERVE_API_KEYS": "k1",
        "JUDGE_SERVE_ALLOWED_HOSTS": "judge.example",
    }
    with live_service(env, tmp_path) as s, s.client() as c:
        port = port_of(s)
        ok = {"Host": f"judge.example:{port}", "Authorization": "Bearer k1"}
        assert c.get("/v1/skills", headers=ok).status_code == 200
        spoofed = {"Host": f"{EVIL}:{port}", "Origin": f"http://{EVIL}:{port}"}
        r = c.post("/ui/key", headers=spoofed, data={"key": "k1", "next": "/ui/"})
        assert_error(r, 400, "Host")
        own = {"Host": f"judge.example:{port}", "Origin": f"http://judge.example:{port}"}
        r = c.post("/ui/key", headers=own, data={"key": "k1", "next": "/ui/"})
        assert r.status_code == 303, r.text[:300]
