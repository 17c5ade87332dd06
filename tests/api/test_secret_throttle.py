"""One throttle for every secret (issue 22, findings 3, 8, 9 and 13): participant codes in
the page cookie, API keys in the UI cookie and unknown study ids count like wrong keys on
the JSON routes; a throttled address keeps the keys it proved; admin-chosen participant
codes need some entropy; ``X-Forwarded-For`` is ignored unless a proxy is trusted."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from tests.api.conftest import LiveService, assert_error, live_service
from tests.api.study_helpers import study_body
from tests.api.test_serve_processes import judge_serve
from tests.api.test_service import fake_model_env
from tests.fakes.clock import FakeClock
from tests.fakes.provider import FakeProvider

LIMIT = 3


@pytest.fixture(scope="module")
def svc(module_tmp: Path, provider_session: FakeProvider) -> Iterator[LiveService]:
    env = {
        **fake_model_env(provider_session),
        "JUDGE_SERVE_API_KEYS": "key-one,key-two",
        "JUDGE_SERVE_ADMIN_KEYS": "admin",
        "JUDGE_SERVE_AUTH_FAILURES_PER_MINUTE": str(LIMIT),
    }
    # the throttle counts per minute of the service's clock: this one stays 5 s into a minute
    with live_service(env, module_tmp / "svc", clock=FakeClock.at(minute_second=5)) as s:
        yield s


@pytest.fixture
def fresh(svc: LiveService) -> Iterator[LiveService]:
    """No failures and no proven secrets left from another test."""
    client = redis.Redis.from_url(svc.redis_url)
    for pattern in ("judge:rate:authfail:*", "judge:authok:*"):
        for name in client.scan_iter(pattern):
            client.delete(name)
    client.close()
    yield svc


def new_study(svc: LiveService) -> tuple[str, str]:
    with svc.client(headers={"Authorization": "Bearer admin"}) as admin:
        r = admin.post("/v1/studies", json=study_body())
        assert r.status_code == 201, r.text
        return r.json()["id"], r.json()["participants"][0]


def test_participant_cookie_guesses_are_throttled(fresh: LiveService) -> None:
    study, code = new_study(fresh)
    with fresh.client() as c:
        codes = [
            c.get(f"/ui/studies/{study}", headers={"Cookie": f"judge_participant=P{i:03d}"})
            for i in range(LIMIT + 2)
        ]
        assert [r.status_code for r in codes] == [200] * LIMIT + [429, 429]
        assert "Enter" in codes[0].text or "code" in codes[0].text.lower()
        # the JSON route shares the budget: this address is throttled there too
        body = {"participant": code, "task_id": "oe_1", "prompt": "x"}
        assert c.post(f"/v1/studies/{study}/prompts", json=body).status_code == 429


def test_json_route_failures_throttle_the_cookie_too(fresh: LiveService) -> None:
    study, code = new_study(fresh)
    with fresh.client() as c:
        got = []
        for i in range(LIMIT + 1):
            body = {"participant": f"WRONG-{i}", "task_id": "oe_1", "prompt": "x"}
            got.append(c.post(f"/v1/studies/{study}/prompts", json=body).status_code)
        assert got == [403] * LIMIT + [429]
        r = c.get(f"/ui/studies/{study}", headers={"Cookie": f"judge_participant={code}"})
        assert r.status_code == 429, "a throttled address cannot test a code it never proved"


def test_ui_key_cookie_guesses_are_throttled(fresh: LiveService) -> None:
    with fresh.client() as c:
        got = [
            c.get("/ui/probes/", headers={"Cookie": f"judge_ui_key=guess-{i}"}).status_code
            for i in range(LIMIT + 2)
        ]
        assert got == [303] * LIMIT + [429, 429]


def test_study_ids_cannot_be_enumerated(fresh: LiveService) -> None:
    study, _ = new_study(fresh)
    with fresh.client() as c:
        got = [c.get(f"/ui/studies/guess-{i}").status_code for i in range(LIMIT + 2)]
        assert got == [404] * LIMIT + [429, 429]
        assert c.get(f"/ui/studies/{study}").status_code == 429, "not proven from here"


def test_wrong_keys_never_lock_out_a_key_proven_from_the_same_address(fresh: LiveService) -> None:
    with fresh.client(headers={"Authorization": "Bearer key-one"}) as good:
        assert good.get("/v1/skills").status_code == 200
        with fresh.client(headers={"Authorization": "Bearer wrong"}) as bad:
            codes = [bad.get("/v1/skills").status_code for _ in range(LIMIT + 2)]
            assert codes == [401] * LIMIT + [429, 429]
        assert good.get("/v1/skills").status_code == 200, "the valid key is not locked out"
        with fresh.client(headers={"Authorization": "Bearer key-two"}) as unproven:
            assert unproven.get("/v1/skills").status_code == 429


def test_admin_chosen_codes_need_entropy(fresh: LiveService) -> None:
    with fresh.client(headers={"Authorization": "Bearer admin"}) as admin:
        for weak in (["P001"], ["AAAAAAAAAAAA"], ["abcd-1234"]):
            r = admin.post("/v1/studies", json=study_body(participants=weak))
            err = assert_error(r, 400, "participants[0]")
            assert "at least 10" in err["message"]
        r = admin.post("/v1/studies", json=study_body(participants=["harbour-7QM3-XPD9"]))
        assert r.status_code == 201, r.text


@pytest.mark.slow
@pytest.mark.timeout(480)
def test_forwarded_for_is_ignored_without_a_trusted_proxy(tmp_path: Path) -> None:
    env = {"JUDGE_SERVE_API_KEYS": "key-one", "JUDGE_SERVE_AUTH_FAILURES_PER_MINUTE": str(LIMIT)}
    with judge_serve(tmp_path, "--workers-inline", "0", env_extra=env) as (_, base):
        # a served process reads the wall clock: should the guesses straddle a minute, they
        # are sent again from another /24 of loopback, which has an allowance of its own
        for address in ("127.0.0.1", "127.0.1.1"):
            minute = int(time.time() // 60)
            transport = httpx.HTTPTransport(local_address=address)
            with httpx.Client(base_url=base, timeout=30, transport=transport) as c:
                codes = [
                    c.get(
                        "/v1/skills",
                        headers={
                            "Authorization": "Bearer wrong",
                            "X-Forwarded-For": f"203.0.113.{i}",
                        },
                    ).status_code
                    for i in range(LIMIT + 2)
                ]
            if int(time.time() // 60) == minute:
                break
        assert codes == [401] * LIMIT + [429, 429]


def test_neighbouring_addresses_share_their_networks_allowance(fresh: LiveService) -> None:
    """Issue 38 item 6: 127.0.0.2, .3 and .4 each got a fresh allowance of guesses; the
    failures of a /24 (IPv4) or /64 (IPv6) are now counted together as well."""

    def client_from(address: str) -> httpx.Client:
        transport = httpx.HTTPTransport(local_address=address)
        return httpx.Client(
            base_url=fresh.base_url,
            transport=transport,
            timeout=30,
            headers={"Authorization": "Bearer wrong"},
        )

    with client_from("127.0.0.2") as first:
        assert [first.get("/v1/skills").status_code for _ in range(LIMIT)] == [401] * LIMIT
    for neighbour in ("127.0.0.3", "127.0.0.4"):
        with client_from(neighbour) as c:
            r = c.get("/v1/skills")
            assert r.status_code == 429, r.text
            assert "its network" in r.text
