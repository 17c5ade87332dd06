"""Helpers for the service tests: the real app under uvicorn on a loopback port, real Redis.

``live_service(env, tmp)`` starts ``create_app()`` in a background thread, exactly as
``judge serve`` would: the app reads its settings (and the engine's) from the environment
at start-up, and starts its own embedded redis-server under ``JUDGE_DATA_DIR`` unless
``REDIS_URL`` is given. The environment is only changed while the app starts.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import uvicorn

from api.cli import server_options
from api.core.clock import WALL_CLOCK, Clock
from api.core.settings import ServiceSettings
from api.jobs.worker import WorkerTuning
from api.state import state_of
from judge.config import JudgeSettings
from judge.config_env import deprecated_names, env_names
from tests.fakes.provider import FakeProvider

REPO = Path(__file__).resolve().parents[2]
SHIPPED_MEMORIES = REPO / "memory" / "shipped"


def free_port() -> int:
    """A TCP port that was free on loopback a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _settings_env_names() -> set[str]:
    """Every environment variable the service or the engine reads at start-up."""
    names = {"REDIS_URL", "JUDGE_MEMORY_DIR", "JUDGE_SKILL_DIRS"}
    for model in (ServiceSettings, WorkerTuning, JudgeSettings):  # old names too
        for name, field in model.model_fields.items():
            names |= {*env_names(model, name), *deprecated_names(field)}
    return names


@contextmanager
def patched_env(env: dict[str, str]) -> Iterator[None]:
    """Only ``env`` among the settings variables (others unset); restored on exit."""
    names = _settings_env_names() | set(env)
    saved = {k: os.environ.get(k) for k in names}
    try:
        for k in names:
            os.environ.pop(k, None)
        os.environ.update(env)
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@dataclass
class LiveService:
    """A running service: its URL, the app object (for state) and where it keeps data."""

    base_url: str
    app: object
    server: uvicorn.Server
    thread: threading.Thread
    data_dir: Path

    def client(self, **kwargs: object) -> httpx.Client:
        """An httpx client for the service (no keep-alive, so one failure stays isolated)."""
        kwargs.setdefault("timeout", 60.0)
        return httpx.Client(
            base_url=self.base_url,
            limits=httpx.Limits(max_keepalive_connections=0),
            **kwargs,  # type: ignore[arg-type]
        )

    @property
    def redis_url(self) -> str:
        return state_of(self.app).redis_url

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=20)


@contextmanager
def live_service(
    env: dict[str, str], data_dir: Path, *, wait_warm: bool = True, clock: Clock = WALL_CLOCK
) -> Iterator[LiveService]:
    """Run the app under uvicorn on a free loopback port until the block ends (by default
    once the engine has warmed up, i.e. when ``/readyz`` can be 200); its rate limits read
    ``clock`` (a :class:`tests.fakes.clock.FakeClock` puts them anywhere in a minute or hour)."""
    env = {"JUDGE_DATA_DIR": str(data_dir), **env}
    if "JUDGE_MEMORY_DIR" not in env:
        # never let a test write into the repository's memory store
        env["JUDGE_MEMORY_DIR"] = str(data_dir / "memories")
    with patched_env(env):
        from api.app import create_app

        settings = ServiceSettings()
        app = create_app(settings, clock=clock)
        port = free_port()
        config = uvicorn.Config(  # loop, parser and proxy options as `judge serve` sets them
            app,
            host="127.0.0.1",
            port=port,
            log_level="warning",
            lifespan="on",
            **server_options(settings),
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, name=f"judge-api-{port}", daemon=True)
        thread.start()
        deadline = time.monotonic() + 240  # a hang guard, not a speed check
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                server.should_exit = True
                raise RuntimeError("the service did not start (see the log above)")
            time.sleep(0.02)
        while wait_warm and state_of(app).engine_ready is False:
            if time.monotonic() > deadline:
                server.should_exit = True
                raise RuntimeError("the engine did not warm up")
            time.sleep(0.02)
    service = LiveService(f"http://127.0.0.1:{port}", app, server, thread, Path(data_dir))
    try:
        yield service
    finally:
        service.stop()


def copy_shipped_memory(name: str, memory_dir: Path) -> None:
    """Copy one of the repository's memories into a private store."""
    shutil.copytree(SHIPPED_MEMORIES / name, memory_dir / name)


def metric_value(text: str, name: str, labels: dict[str, str] | None = None) -> float:
    """Sum of the samples of ``name`` whose labels include ``labels`` (0 when absent)."""
    total = 0.0
    pattern = re.compile(rf"^{re.escape(name)}(\{{[^}}]*\}})? (\S+)$")
    for line in text.splitlines():
        m = pattern.match(line)
        if not m:
            continue
        got = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1) or ""))
        if all(got.get(k) == v for k, v in (labels or {}).items()):
            total += float(m.group(2))
    return total


def assert_error(response: httpx.Response, status: int | tuple[int, ...], field: str) -> dict:
    """A 4xx JSON error ``{"error": {"code", "field", "message"}}`` naming ``field``."""
    statuses = (status,) if isinstance(status, int) else status
    assert response.status_code in statuses, (response.status_code, response.text[:500])
    assert response.headers["content-type"].startswith("application/json"), response.headers
    body = response.json()
    assert set(body) == {"error"}, body
    err = body["error"]
    assert err["code"] and err["message"], err
    assert err["field"] == field, (err, field)
    return err


def batch_results(client: httpx.Client, items: object, timeout_s: float = 120) -> list[dict]:
    """Post ``items`` (any body ``POST /v1/batches`` takes) as a batch, wait until it is done
    and return its result lines (``{"index", "result" | "error"}``, input order)."""
    r = client.post("/v1/batches", json=items)
    assert r.status_code == 202, r.text
    batch = r.json()["id"]
    deadline = time.monotonic() + timeout_s
    while client.get(f"/v1/batches/{batch}").json()["status"] != "done":
        assert time.monotonic() < deadline, "the batch did not finish"
        time.sleep(0.2)
    return [json.loads(x) for x in client.get(f"/v1/batches/{batch}/results").text.splitlines()]


@pytest.fixture(scope="module")
def module_tmp(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Path:
    """A temporary folder shared by one test module."""
    return tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1])


@pytest.fixture(scope="module")
def open_service(module_tmp: Path, provider_session) -> Iterator[LiveService]:
    """A key-less service on the fake model, one per test module."""
    from tests.api.test_service import fake_model_env  # not at import: it imports this module

    with live_service(fake_model_env(provider_session), module_tmp / "open") as s:
        yield s


@pytest.fixture
def open_client(open_service: LiveService) -> Iterator[httpx.Client]:
    """A client of :func:`open_service`."""
    with open_service.client() as c:
        yield c


@pytest.fixture
def admin(service: LiveService) -> Iterator[httpx.Client]:
    """A client of the module's ``service`` fixture with the admin key ``admin``."""
    with service.client(headers={"Authorization": "Bearer admin"}) as c:
        yield c


@pytest.fixture
def anon(service: LiveService) -> Iterator[httpx.Client]:
    """A client of the module's ``service`` fixture without a key."""
    with service.client() as c:
        yield c


def fake_judge_env(provider: FakeProvider, **extra: str) -> dict[str, str]:
    """A service's environment judging with the fake provider (fast retries, one inline
    worker), plus ``extra`` variables."""
    return {
        "JUDGE_MODEL": "openai/fake-judge",
        "JUDGE_API_BASE": provider.base_url,
        "JUDGE_API_KEY": "test-key",
        "JUDGE_BACKOFF_BASE_S": "0.001",
        "JUDGE_TIMEOUT_S": "60",  # a hang guard, not a speed check
        "JUDGE_SERVE_INLINE_WORKERS": "1",
        **extra,
    }
