"""A live service (real redis-server, uvicorn on loopback) for the campaign tests: admin key
``admin``, reader key ``reader``; ``admin`` and ``anon`` clients."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.api.conftest import LiveService, admin, anon, live_service

__all__ = ["admin", "anon", "service"]  # the clients come from tests/api/conftest.py


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    env = {"JUDGE_SERVE_API_KEYS": "reader", "JUDGE_SERVE_ADMIN_KEYS": "admin"}
    with live_service(env, tmp_path_factory.mktemp("campaign-service")) as svc:
        yield svc
