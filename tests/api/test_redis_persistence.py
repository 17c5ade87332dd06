"""An external Redis must keep its data across a restart (docs/security.md#redis).

``judge serve`` and ``judge worker`` refuse a Redis that keeps nothing (``--appendonly no
--save ''``) unless told that losing data is acceptable; and a Redis started as the docs say
keeps every acknowledged campaign answer and batch result through a restart, mid-campaign and
mid-batch."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
import redis

from api.core.redis_embedded import redis_binary
from api.core.redis_persistence import ALLOW_FLAG, ALLOW_VARIABLE, check, describe, redact
from api.state import state_of
from tests.api.conftest import REPO, free_port, live_service
from tests.api.test_service import fake_model_env
from tests.campaigns.helpers import invite, pairwise_body

SECURITY = REPO / "docs" / "security.md"


class RedisProcess:
    """A redis-server run by a shell command in a folder, restartable with the same command."""

    def __init__(self, command: str, cwd: Path, port: int, password: str | None) -> None:
        self.command, self.cwd, self.port, self.password = command, cwd, port, password
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        env = {**os.environ, "PATH": f"{Path(redis_binary()).parent}:{os.environ['PATH']}"}
        self.proc = subprocess.Popen(
            ["bash", "-c", f"exec {self.command}" if "&&" not in self.command else self.command],
            cwd=self.cwd,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        client = redis.Redis(port=self.port, password=self.password, socket_timeout=2)
        deadline = time.monotonic() + 30
        while True:
            try:
                if client.ping():
                    break
            except redis.RedisError:
                pass
            assert time.monotonic() < deadline, f"redis did not start: {self.command}"
            time.sleep(0.05)
        client.close()

    def stop(self) -> None:
        """A clean stop (SIGTERM: Redis flushes its append-only file and exits)."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(30)

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"


@pytest.fixture
def documented_redis(tmp_path: Path) -> Iterator[RedisProcess]:
    """The Redis of docs/security.md, started exactly as the page says (on a free port)."""
    (block,) = [
        b for b in re.findall(r"```sh\n(.*?)```", SECURITY.read_text(), re.S) if "redis-server" in b
    ]
    command = block.strip().rstrip("&").strip()
    password = re.search(r"--requirepass '([^']+)'", command)[1]  # type: ignore[index]
    port = free_port()
    server = RedisProcess(command.replace("6390", str(port)), tmp_path, port, password)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def volatile_redis(tmp_path: Path) -> Iterator[RedisProcess]:
    port = free_port()
    command = f"redis-server --port {port} --save '' --appendonly no --dir {tmp_path}"
    server = RedisProcess(command, tmp_path, port, None)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_persistence_is_read_from_config_or_info() -> None:
    assert describe({b"appendonly": b"yes", b"save": b""}, {}).durable
    assert describe({"appendonly": "no", "save": "3600 1"}, {}).durable
    assert not describe({"appendonly": "no", "save": ""}, {"aof_enabled": 1}).durable
    assert describe(None, {"aof_enabled": 1}).durable  # CONFIG refused: the AOF decides
    assert not describe(None, {"aof_enabled": 0}).durable
    assert redact("redis://user:pw@h:1/0") == "redis://user:***@h:1/0"


def test_a_volatile_redis_is_refused_unless_loss_is_accepted(volatile_redis: RedisProcess) -> None:
    with pytest.raises(RuntimeError) as refused:
        check(volatile_redis.url, may_lose_data=False)
    message = str(refused.value)
    assert "keeps nothing across a restart" in message
    assert ALLOW_FLAG in message and ALLOW_VARIABLE in message
    assert not check(volatile_redis.url, may_lose_data=True).durable


def test_a_redis_whose_config_is_renamed_is_judged_by_its_append_only_file(
    tmp_path: Path,
) -> None:
    port = free_port()
    for aof, durable in (("yes", True), ("no", False)):
        command = (
            f"redis-server --port {port} --save '' --appendonly {aof} --dir {tmp_path} "
            "--rename-command CONFIG ''"
        )
        server = RedisProcess(command, tmp_path, port, None)
        server.start()
        try:
            assert check(server.url, may_lose_data=True).durable is durable
        finally:
            server.stop()


def _judge(*args: str, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "judge.cli.main", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
    )


def _clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_") and k != "REDIS_URL"}
    return {**env, "PYTHONPATH": str(REPO), "JUDGE_DATA_DIR": str(tmp_path / "data"), **extra}


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_serve_and_worker_refuse_a_volatile_redis(
    volatile_redis: RedisProcess, tmp_path: Path
) -> None:
    env = _clean_env(tmp_path, REDIS_URL=volatile_redis.url)
    for verb in (["serve", "--port", str(free_port())], ["worker"]):
        done = _judge(*verb, env=env)
        assert done.returncode == 2, done.stderr
        last = done.stderr.strip().splitlines()[-1]
        assert f"judge {verb[0]}: the Redis at" in last and ALLOW_FLAG in last, done.stderr
    port = free_port()
    serve = subprocess.Popen(
        [sys.executable, "-m", "judge.cli.main", "serve", "--port", str(port), ALLOW_FLAG],
        env=env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 300  # a hang guard: start-up imports are slow under load
        while True:
            assert serve.poll() is None, serve.stderr.read()  # type: ignore[union-attr]
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "judge serve --redis-may-lose-data did not start"
            time.sleep(0.2)
    finally:
        os.killpg(serve.pid, signal.SIGTERM)
        serve.wait(30)


@pytest.mark.slow
def test_serve_says_when_the_redis_cannot_be_reached(tmp_path: Path) -> None:
    env = _clean_env(tmp_path, REDIS_URL=f"redis://:pw@127.0.0.1:{free_port()}/0")
    done = _judge("serve", "--port", str(free_port()), env=env)
    assert done.returncode == 2
    assert "cannot reach the Redis at redis://:***@127.0.0.1" in done.stderr, done.stderr
    assert ":pw@" not in done.stderr


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_documented_redis_keeps_every_answer_and_result_through_a_restart(
    documented_redis: RedisProcess, tmp_path: Path, provider_session
) -> None:
    provider_session.reset()
    env = {
        **fake_model_env(provider_session),
        "REDIS_URL": documented_redis.url,
        "JUDGE_SERVE_API_KEYS": "reader-key-0123456789",
        "JUDGE_SERVE_ADMIN_KEYS": "admin-key-0123456789",
        "JUDGE_SERVE_INLINE_WORKERS": "1",
    }
    with live_service(env, tmp_path / "service") as svc:
        admin = svc.client(headers={"Authorization": "Bearer admin-key-0123456789"})
        anon = svc.client()
        body = pairwise_body(
            "durable", n_items=6, votes_per_item=2, validation="none", min_seconds=0
        )
        assert admin.post("/v1/campaigns", json=body).status_code == 201
        (link,) = invite(admin, "durable", 1)
        acknowledged = []
        for _ in range(3):  # mid-campaign: three answers acknowledged, more to come
            task = anon.get(f"/v1/label/{link['token']}/next").json()["task"]
            got = _answer(anon, link["token"], task["id"])
            acknowledged.append(task["id"])
            assert got["accepted"]
        provider_session.latency = 0.3  # mid-batch: items still running at the restart
        items = [
            {"task": {"id": f"t{i}", "category": "OE", "brief": "b"}, "prompt": f"a cube #{i}",
             "images": []}
            for i in range(12)
        ]  # fmt: skip
        batch = admin.post("/v1/batches", json=items)
        assert batch.status_code == 202, batch.text
        batch_id = batch.json()["id"]
        _wait(lambda: admin.get(f"/v1/batches/{batch_id}").json().get("done", 0) >= 2)
        done_before = admin.get(f"/v1/batches/{batch_id}").json()["done"]
        assert done_before < len(items)

        documented_redis.stop()
        documented_redis.start()
        provider_session.latency = 0.0

        votes = admin.get("/v1/campaigns/durable/votes")
        assert votes.status_code == 200, votes.text
        assert len(votes.text.splitlines()) == len(acknowledged)
        nxt = anon.get(f"/v1/label/{link['token']}/next")
        assert nxt.status_code == 200, nxt.text  # the link lives on (no 410 'revoked')
        _wait(
            lambda: admin.get(f"/v1/batches/{batch_id}").json()["status"] == "done",
            300,
            lambda: admin.get(f"/v1/batches/{batch_id}").text,
        )
        status = admin.get(f"/v1/batches/{batch_id}").json()
        assert status["done"] == len(items) >= done_before
        lines = admin.get(f"/v1/batches/{batch_id}/results").text.splitlines()
        assert sorted(json.loads(x)["index"] for x in lines) == list(range(12))
        assert provider_session.calls  # the batch really ran on the fake model


def _answer(client: httpx.Client, token: str, task: str) -> dict:
    while True:
        got = client.post(f"/v1/label/{token}/answers", json={"task": task, "choice": "a"})
        assert got.status_code == 200, got.text
        if got.json()["accepted"]:
            return got.json()
        time.sleep(min(0.1, got.json()["penalty_s"]) or 0.05)


def _wait(
    ready: Callable[[], bool], timeout_s: float = 120, state: Callable[[], str] = str
) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if ready():
                return
        except (httpx.HTTPError, KeyError):
            pass
        assert time.monotonic() < deadline, f"timed out: {state()}"
        time.sleep(0.2)


@pytest.mark.timeout(300)
def test_the_service_logs_when_the_redis_lost_its_data(
    documented_redis: RedisProcess, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with live_service({"REDIS_URL": documented_redis.url}, tmp_path / "service") as svc:
        client = svc.client()
        assert client.get("/readyz").json()["checks"]["redis"] == "ok"
        assert "lost its data" not in caplog.text
        redis.Redis.from_url(documented_redis.url).flushall()  # what a volatile restart does
        for _ in range(2):
            assert client.get("/readyz").status_code == 200  # Redis itself is usable again
        lost = [r for r in caplog.records if "Redis lost its data" in r.getMessage()]
        assert len(lost) == 1 and lost[0].levelname == "ERROR"  # once per loss


@pytest.mark.timeout(300)
def test_liveness_fails_when_the_private_redis_dies(tmp_path: Path) -> None:
    with live_service({}, tmp_path / "service") as svc:
        client = svc.client()
        assert client.get("/healthz").status_code == 200
        embedded = state_of(svc.app).embedded_redis
        embedded.proc.kill()
        embedded.proc.wait(10)
        alive = client.get("/healthz")
        assert alive.status_code == 503
        assert "private redis-server exited" in alive.json()["checks"]["redis"]
