"""``judge serve`` as real processes: its embedded redis-server dies with it (``kill -9``),
a restart never runs two servers on one append-only file, and ``/metrics`` of
``--workers 2`` counts the requests of both worker processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from api.core.redis_embedded import PIDFILE, EmbeddedRedis, redis_binary
from tests.api.conftest import REPO, free_port, metric_value

pytestmark = pytest.mark.slow  # minutes of work: make test-fast leaves it out (docs/testing.md)


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie counts as gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def redis_servers_of(data_dir: Path) -> list[int]:
    """Live redis-server processes working in ``data_dir`` (redis changes into ``--dir``)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            name = (entry / "comm").read_text().strip()
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        mine = name.startswith("redis-server") and cwd == str(data_dir.resolve())
        if mine and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


@contextmanager
def judge_serve(
    tmp: Path, *extra: str, env_extra: dict[str, str] | None = None
) -> Iterator[tuple[subprocess.Popen, str]]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_") and k != "REDIS_URL"}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    env.update(
        JUDGE_DATA_DIR=str(tmp / "data"),
        JUDGE_MEMORY_DIR=str(tmp / "memories"),
        PYTHONPATH=str(REPO),
    )
    env.update(env_extra or {})
    log = open(tmp / f"serve-{port}.log", "w")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "judge.cli.main", "serve", "--port", str(port), *extra],
        cwd=tmp,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    probe = httpx.Client(timeout=2)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if probe.get(f"{base}/readyz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        else:
            pytest.fail(f"judge serve did not become ready: {(tmp / log.name).read_text()[-2000:]}")
        yield proc, base
    finally:
        probe.close()
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()


@pytest.mark.timeout(480)
def test_kill_9_of_serve_takes_its_redis_along_and_a_restart_runs_one(tmp_path: Path) -> None:
    redis_dir = tmp_path / "data" / "redis"
    with judge_serve(tmp_path) as (proc, _):
        redis_pid = int((redis_dir / PIDFILE).read_text().split()[0])
        assert alive(redis_pid) and redis_servers_of(redis_dir) == [redis_pid]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 20
        while alive(redis_pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not alive(redis_pid), "the embedded redis-server outlived a kill -9 of serve"
    with judge_serve(tmp_path) as (_, base):
        assert httpx.get(f"{base}/readyz", timeout=5).json()["checks"]["redis"] == "ok"
        assert len(redis_servers_of(redis_dir)) == 1


def test_an_orphaned_server_is_stopped_before_a_new_one_starts(tmp_path: Path) -> None:
    """A redis-server left running on the folder (recorded in the pidfile, its owner gone)
    is stopped first; while an owner is alive, a second start is refused."""
    data = tmp_path / "redis"
    data.mkdir()
    orphan = subprocess.Popen(
        [
            redis_binary(),
            "--port",
            str(free_port()),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(data.resolve()),
            "--appendonly",
            "yes",
            "--save",
            "",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        (data / PIDFILE).write_text(f"{orphan.pid} 0\n")
        deadline = time.monotonic() + 10
        while not redis_servers_of(data) and time.monotonic() < deadline:
            time.sleep(0.05)
        owner = EmbeddedRedis(data)
        owner.start()
        try:
            assert orphan.wait(timeout=15) is not None
            assert redis_servers_of(data) == [owner.proc.pid]  # type: ignore[union-attr]
            with pytest.raises(RuntimeError, match="another process runs the embedded Redis"):
                EmbeddedRedis(data).start()
            assert redis_servers_of(data) == [owner.proc.pid]  # type: ignore[union-attr]
        finally:
            owner.stop()
        assert redis_servers_of(data) == []
        assert not (data / PIDFILE).exists()
    finally:
        if orphan.poll() is None:
            orphan.kill()
            orphan.wait()


@pytest.mark.timeout(480)
def test_metrics_sum_over_every_worker_process(tmp_path: Path) -> None:
    fresh = httpx.Limits(max_keepalive_connections=0)  # a new connection per request
    with (
        judge_serve(tmp_path, "--workers", "2", "--workers-inline", "0") as (_, base),
        httpx.Client(base_url=base, timeout=10, limits=fresh) as c,
    ):
        for _ in range(30):
            assert c.get("/healthz").status_code == 200
        seen = []
        for _ in range(6):
            text = c.get("/metrics").text
            seen.append(metric_value(text, "judge_requests_total", {"route": "/healthz"}))
        assert seen == [30.0] * 6, seen
        assert (tmp_path / "data" / "metrics").is_dir()
