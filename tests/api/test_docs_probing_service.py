"""Every shell example of ``docs/probing-service.md`` runs as written, against real processes:
the service block under bash (``judge serve``), the client blocks as one bash script (curl), the
workers block (redis-server, ``judge serve --workers-inline 0``, two ``judge worker``) with a
probe sent through it. The doc's fixed ports (8080, 6379) are swapped for free ones, and the
judge is the scripted fake provider on loopback."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import free_port

pytestmark = pytest.mark.slow  # minutes of work: make test-fast leaves it out (docs/testing.md)

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "probing-service.md"
BLOCK = re.compile(r"<!-- docs-test: (\w+) -->\n```bash\n(.*?)```", re.S)


def blocks(kind: str) -> list[str]:
    found = [body for k, body in BLOCK.findall(DOC.read_text()) if k == kind]
    assert found, f"no {kind!r} example in {DOC}"
    return found


@pytest.fixture(scope="module")
def provider() -> Iterator[str]:
    cmd = [sys.executable, "-m", "tests.fakes.probing_script"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(cmd, env=env, cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        assert line.startswith("READY "), line
        yield line.split()[1]
    finally:
        proc.terminate()
        proc.wait(20)


def doc_env(tmp: Path, provider: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "REDIS_URL"))}
    return {
        **keep,
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "PYTHONPATH": str(REPO),
        "HOME": str(tmp),
        "JUDGE_MODEL": "openai/fake-judge",
        "JUDGE_API_BASE": provider,
        "JUDGE_API_KEY": "k",
        "JUDGE_SAFETY": "false",
        "JUDGE_DATA_DIR": str(tmp / "data"),
        "JUDGE_MEMORY_DIR": str(tmp / "memories"),
        "JUDGE_CACHE_DIR": str(tmp / "cache"),
        "JUDGE_BACKENDS": str(tmp / "backends.toml"),  # the workers block relies on it
        "JUDGE_WORKER_POLL_DELAY_S": "0.2",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "HF_HUB_OFFLINE": "1",
    }


class Background:
    """A doc block run by bash in its own session; :meth:`stop` ends all it started."""

    def __init__(self, script: str, cwd: Path, env: dict[str, str], port: int):
        log = open(cwd / "background.log", "wb")  # noqa: SIM115 - the child owns it
        self.proc = subprocess.Popen(
            ["bash", "-c", script], cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        log.close()
        self.log = cwd / "background.log"
        self.base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 240
        while True:
            assert self.proc.poll() is None, self.log.read_text()[-3000:]
            try:
                if httpx.get(f"{self.base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, self.log.read_text()[-3000:]
            time.sleep(0.2)

    def stop(self) -> None:
        """SIGTERM to every process of the block, SIGKILL to any still there 20 s later."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + 20
            while self._group_alive() and time.monotonic() < deadline:
                time.sleep(0.1)
            if not self._group_alive():
                break
        self.proc.wait(20)

    def _group_alive(self) -> bool:
        self.proc.poll()  # reap the shell itself
        try:
            os.killpg(self.proc.pid, 0)
        except ProcessLookupError:
            return False
        return True


def wait_status(base: str, probe_id: str) -> dict:
    deadline = time.monotonic() + 240
    while True:
        body = httpx.get(f"{base}/v1/probes/{probe_id}", timeout=30).json()
        if body["status"] != "running":
            return body
        assert time.monotonic() < deadline, body
        time.sleep(0.3)


@pytest.mark.timeout(600)
def test_service_and_client_examples(tmp_path: Path, provider: str) -> None:
    port = free_port()
    env = doc_env(tmp_path, provider)
    (service,) = blocks("service")
    svc = Background(service.replace("8080", str(port)), tmp_path, env, port)
    try:
        script = "set -e\n" + "\n".join(blocks("client")).replace("8080", str(port))
        run = subprocess.run(
            ["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
            timeout=120,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        out = run.stdout
        assert '"status":"running"' in out and '"images":500' in out, out
        assert "running {" in out, out
        assert '"status":"cancelled","cancelled":true' in out, out
        assert '"code":"over_budget"' in out and "JUDGE_PROBE_BUDGET_IMAGES" in out, out
        assert '"code":"forbidden_field","field":"model"' in out, out
        probe_id = re.search(r'"id":"([0-9a-f]{32})"', out)[1]  # type: ignore[index]
        body = wait_status(svc.base, probe_id)
        assert body["status"] == "cancelled"
    finally:
        svc.stop()


@pytest.mark.timeout(600)
def test_workers_example(tmp_path: Path, provider: str) -> None:
    port, redis_port = free_port(), free_port()
    env = doc_env(tmp_path, provider)
    (tmp_path / "backends.toml").write_text(
        '[[backends]]\nid = "card"\nmodel = "builtin/renderer"\n'
    )
    (workers,) = blocks("workers")
    script = workers.replace("8080", str(port)).replace("6379", str(redis_port))
    cluster = Background(script, tmp_path, env, port)
    try:
        body = {"topic": "animals", "backend": "card", "depth": 1, "inputs": 2, "images": 1}
        r = httpx.post(f"{cluster.base}/v1/probes", json=body, timeout=30)
        assert r.status_code == 202, r.text
        done = wait_status(cluster.base, r.json()["id"])
        assert done["status"] == "done", done.get("error")
        assert len(done["tree"]["root"]["tests"]) == 2
        log = cluster.log.read_text()
        assert log.count("Starting worker") == 2, log[-3000:]
    finally:
        cluster.stop()
