"""A live service (real redis-server, uvicorn on loopback) for the campaign tests: admin key
``admin``, reader key ``reader``; ``admin`` and ``anon`` clients."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.api.conftest import LiveService, live_service


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    env = {"JUDGE_API_KEYS": "reader", "JUDGE_ADMIN_KEYS": "admin"}
    with live_service(env, tmp_path_factory.mktemp("campaign-service")) as svc:
        yield svc


@pytest.fixture
def admin(service: LiveService) -> Iterator[httpx.Client]:
    with service.client(headers={"Authorization": "Bearer admin"}) as c:
        yield c


@pytest.fixture
def anon(service: LiveService) -> Iterator[httpx.Client]:
    with service.client() as c:
        yield c
