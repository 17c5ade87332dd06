"""``/docs`` loads no script from another origin (issue 22, finding 14): it is a plain page of the
service listing the routes of ``/openapi.json``, under the UI's Content-Security-Policy."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import live_service
from tests.api.test_service import fake_model_env
from tests.fakes.provider import FakeProvider


@pytest.fixture(scope="module")
def client(module_tmp: Path, provider_session: FakeProvider) -> Iterator[httpx.Client]:
    with live_service(fake_model_env(provider_session), module_tmp / "svc") as s, s.client() as c:
        yield c


def test_docs_is_a_script_free_page_of_the_routes(client: httpx.Client) -> None:
    r = client.get("/docs")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    sources = re.findall(r"<script[^>]*\bsrc=\"([^\"]*)\"", r.text, flags=re.I)
    assert all(src.startswith("/ui/static/") for src in sources), sources
    assert r.text.lower().count("<script") == len(sources), "no inline script"
    # nothing is loaded from another origin (a CDN's Swagger bundle was the old page's)
    assert not re.search(r"\b(?:src|href)=\"(?:https?:)?//", r.text, flags=re.I)
    assert "script-src 'self'" in r.headers["content-security-policy"]
    for route in ("POST /v1/score", "POST /v1/batches", "GET /v1/probes", "GET /healthz"):
        assert f"<code>{route}</code>" in r.text, route
    assert 'href="/openapi.json"' in r.text
    assert client.get("/openapi.json").json()["paths"]["/v1/score"]["post"]
    assert client.get("/redoc").status_code == 404
