"""The service's processes run on uvloop: `judge serve` (with the httptools parser, api.cli)
and `judge worker` (api.jobs.worker).

The service tests' live server (tests/api/conftest.py) runs on the same pair, and the batch
tests start real `judge worker` processes, so every test of the API exercises them; here:
that both `serve` paths ask uvicorn for them, that uvicorn really loads them (they are
installed dependencies, not optional extras) and that the worker's loop is uvloop's.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import uvicorn
import uvloop

from api.cli import SERVER_HTTP, SERVER_LOOP, server_options
from api.core.settings import ServiceSettings
from judge.cli.main import main as judge_main


def _recording_run(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    ran: list[dict] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: ran.append(kw))
    for name in (
        "JUDGE_SERVE_API_KEYS",
        "JUDGE_SERVE_ALLOW_OPEN_PUBLIC",
        "JUDGE_SERVE_HOST",
        "JUDGE_SERVE_PORT",
    ):
        monkeypatch.delenv(name, raising=False)
    return ran


def test_serve_one_process_asks_for_uvloop_and_httptools(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    ran = _recording_run(monkeypatch)
    monkeypatch.setenv("JUDGE_DATA_DIR", str(tmp_path))
    assert judge_main(["serve", "--port", "18080", "--workers-inline", "0"]) == 0
    assert ran[0]["loop"] == "uvloop" and ran[0]["http"] == "httptools"
    assert ran[0]["proxy_headers"] is False


def test_serve_several_processes_ask_for_uvloop_and_httptools(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    ran = _recording_run(monkeypatch)
    monkeypatch.setenv("JUDGE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/0")  # no embedded Redis is started
    # nothing listens there: the start-up check of that Redis is not this test's subject
    monkeypatch.setattr("api.cli.external_redis_problem", lambda settings: None)
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path / "restored-after-the-test"))
    monkeypatch.setenv("JUDGE_SERVE_INLINE_WORKERS", "0")
    assert judge_main(["serve", "--port", "18080", "--workers", "2"]) == 0
    assert ran[0]["workers"] == 2 and ran[0]["factory"] is True
    assert ran[0]["loop"] == "uvloop" and ran[0]["http"] == "httptools"


def test_uvicorn_loads_the_pair() -> None:
    """The options are real: uvicorn imports the httptools protocol and builds uvloop loops."""

    async def app(scope: dict, receive: object, send: object) -> None:  # never called
        raise AssertionError(scope)

    config = uvicorn.Config(app, **server_options(ServiceSettings()))
    config.load()
    assert config.http_protocol_class.__name__ == "HttpToolsProtocol"
    factory = config.get_loop_factory()
    assert factory is not None
    loop = factory()
    try:
        assert isinstance(loop, uvloop.Loop)

        async def running() -> asyncio.AbstractEventLoop:
            return asyncio.get_running_loop()

        assert loop.run_until_complete(running()) is loop
    finally:
        loop.close()
    assert (SERVER_LOOP, SERVER_HTTP) == ("uvloop", "httptools")


def test_judge_worker_runs_on_uvloop(monkeypatch: pytest.MonkeyPatch) -> None:
    """arq takes the thread's event loop when the worker is built: it must be uvloop's."""
    from api.jobs import worker as worker_module

    seen: list[asyncio.AbstractEventLoop] = []
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/0")  # never connected: run is replaced
    async def run(self: worker_module.BatchWorker) -> None:
        seen.append(asyncio.get_running_loop())

    monkeypatch.setattr(worker_module.BatchWorker, "async_run", run)
    # the worker's logging set-up would outlive the test in this process
    monkeypatch.setattr(worker_module.logging.config, "dictConfig", lambda config: None)
    try:
        assert worker_module.run_worker() == 0
    finally:
        for loop in seen:
            loop.close()
        asyncio.set_event_loop(None)
    assert len(seen) == 1 and isinstance(seen[0], uvloop.Loop)
