"""Scale-out proof (issue 22): Redis, the API and two workers as separate processes on separate
hosts — each its own network namespace linked to the test's by a veth pair (plain processes on
loopback where namespaces cannot be made) — sharing nothing but the Redis URL. One worker host
is killed (SIGKILL of the worker and its provider) while it runs a probe and batch items; the
other finishes both, and nothing is lost or duplicated.

Each host has its own scripted fake provider on its own loopback (the probing script: an LLM
that writes inputs and a judge), its own data folder and its own copy of the backends file.
"""

from __future__ import annotations

import json
import re
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from api.core.redis_embedded import redis_binary
from tests.api.conftest import free_port
from tests.api.hosts import Host, Hosts, stop_all
from tests.api.test_batches import check_results, make_items, tail

pytestmark = pytest.mark.slow  # minutes of work: make test-fast leaves it out (docs/testing.md)

REPO = Path(__file__).resolve().parents[2]
KEY = "scale-out-test-key-7f3b9c"  # a key strong enough for a non-loopback bind
AUTH = {"Authorization": f"Bearer {KEY}"}
PROBE = {"topic": "animals", "backend": "card", "depth": 2, "topics": 2, "inputs": 3, "images": 1}
DEADLINE_S = 180.0
"""How long any one wait may take before the test fails (a hang guard, not a target)."""


def wait_for(what: str, check: Any, logs: Any, timeout_s: float = DEADLINE_S) -> Any:
    """Poll ``check()`` until it is truthy; fail with ``what`` and the logs after the guard."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = check()
        if got:
            return got
        assert time.monotonic() < deadline, f"{what}\n{logs()}"
        time.sleep(0.1)


class Cluster:
    """The processes of the test, each on its host; :meth:`close` ends every one of them."""

    def __init__(self, tmp: Path, hosts: Hosts):
        self.tmp, self.hosts = tmp, hosts
        self.procs: list[subprocess.Popen[bytes]] = []
        self.password = secrets.token_hex(16)
        self.redis_port = free_port()
        self.backends = 'backends = [{id = "card", model = "builtin/renderer"}]\n'

    def _spawn(self, host: Host, cmd: list[str], name: str, env: dict[str, str]) -> Any:
        log = open(self.tmp / f"{name}.log", "wb")  # noqa: SIM115 - the child owns it
        proc = subprocess.Popen(
            host.wrap(cmd), env=env, cwd=REPO, stdout=log, stderr=subprocess.STDOUT
        )
        log.close()
        proc.log_path = self.tmp / f"{name}.log"  # type: ignore[attr-defined]
        self.procs.append(proc)
        return proc

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{tail(p)}" for p in sorted(self.tmp.glob("*.log")))

    def start_redis(self, host: Host, clients: list[Host]) -> None:
        binds = list(dict.fromkeys(["127.0.0.1", *(h.gateway for h in clients)]))
        cmd = [
            redis_binary(), "--port", str(self.redis_port), "--bind", *binds,
            "--requirepass", self.password, "--appendonly", "yes",
            "--dir", str(self.tmp),
        ]  # fmt: skip
        self._spawn(host, cmd, "redis", {"PATH": "/usr/bin:/bin"})
        self.r = redis.Redis(port=self.redis_port, password=self.password)
        wait_for("redis did not start", self._ping, self.logs)

    def _ping(self) -> bool:
        try:
            return bool(self.r.ping())
        except redis.RedisError:
            return False

    def redis_url(self, host: Host) -> str:
        return f"redis://:{self.password}@{host.gateway}:{self.redis_port}/0"

    def provider(self, host: Host, latency: float) -> tuple[subprocess.Popen[str], str]:
        """The host's own scripted fake provider (on the host's loopback)."""
        cmd = [sys.executable, "-m", "tests.fakes.probing_script", "--latency", str(latency)]
        env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "HOME": str(self.tmp)}
        proc = subprocess.Popen(
            host.wrap(cmd), env=env, cwd=REPO, stdout=subprocess.PIPE, text=True
        )
        self.procs.append(proc)  # type: ignore[arg-type]
        line = proc.stdout.readline()  # type: ignore[union-attr]
        assert line.startswith("READY "), f"fake provider on {host.name}: {line!r}"
        return proc, line.split()[1]

    def env(self, host: Host, provider_url: str) -> dict[str, str]:
        """What a process on ``host`` is given: its own folders, provider and backends file;
        the only thing hosts share is the Redis URL."""
        home = self.tmp / host.name
        home.mkdir(exist_ok=True)
        (home / "backends.toml").write_text(self.backends)
        return {
            "PATH": "/usr/bin:/bin",
            "HOME": str(home),
            "PYTHONPATH": str(REPO),
            "REDIS_URL": self.redis_url(host),
            "JUDGE_SERVE_API_KEYS": KEY,
            "JUDGE_MODEL": "openai/fake-judge",
            "JUDGE_API_BASE": provider_url,
            "JUDGE_API_KEY": "k",
            "JUDGE_SAFETY": "false",
            "JUDGE_BACKOFF_BASE_S": "0.01",
            "JUDGE_TIMEOUT_S": "20",
            "JUDGE_DATA_DIR": str(home / "data"),
            "JUDGE_MEMORY_DIR": str(home / "memories"),
            "JUDGE_CACHE_DIR": str(home / "cache"),
            "JUDGE_BACKENDS": str(home / "backends.toml"),
            "JUDGE_WORKER_LEASE_S": "4",
            "JUDGE_WORKER_POLL_DELAY_S": "0.2",
            "JUDGE_WORKER_CONCURRENCY": "4",
            "JUDGE_SERVE_RECONCILE_INTERVAL_S": "2",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
        }

    def start_api(self, host: Host) -> str:
        _, provider = self.provider(host, 0.0)
        port = free_port()
        args = ["serve", "--host", host.address, "--port", str(port), "--workers-inline", "0"]
        cmd = [sys.executable, "-m", "judge.cli.main", *args]
        proc = self._spawn(host, cmd, "api", self.env(host, provider))
        base = f"http://{host.address}:{port}"

        def healthy() -> bool:
            assert proc.poll() is None, tail(proc.log_path)
            try:
                return httpx.get(f"{base}/healthz", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        wait_for("the API did not start", healthy, self.logs)
        return base

    def start_worker(self, host: Host) -> Any:
        provider_proc, provider = self.provider(host, 0.3)
        cmd = [sys.executable, "-m", "judge.cli.main", "worker"]
        proc = self._spawn(host, cmd, f"worker-{host.name}", self.env(host, provider))
        proc.provider = provider_proc  # type: ignore[attr-defined]
        return proc

    def close(self) -> None:
        stop_all(list(reversed(self.procs)))  # workers first, Redis last
        if hasattr(self, "r"):
            self.r.close()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[Cluster, dict[str, Host]]]:
    with Hosts() as hosts:
        named = {name: hosts.add(name) for name in ("api", "w1", "w2")}
        c = Cluster(tmp_path, hosts)
        try:
            c.start_redis(Host("redis", None, "127.0.0.1", "127.0.0.1"), list(named.values()))
            yield c, named
        finally:
            c.close()


def in_flight(log: str, job: str) -> set[str]:
    """Ids of arq jobs matching ``job`` (a regex with one group) started and not finished."""
    started = set(re.findall(rf"→ {job}", log))
    return started - set(re.findall(rf"← {job}", log))


def walk(node: dict[str, Any]) -> list[dict[str, Any]]:
    return [node] + [n for c in node["children"] for n in walk(c)]


@pytest.mark.timeout(600)  # three interpreters start on a shared 2-core machine
def test_a_worker_host_killed_mid_batch_and_mid_probe_loses_and_duplicates_nothing(
    cluster: tuple[Cluster, dict[str, Host]],
) -> None:
    c, hosts = cluster
    print(f"hosts in separate network namespaces: {c.hosts.isolated}")
    base = c.start_api(hosts["api"])
    client = httpx.Client(base_url=base, headers=AUTH, timeout=30)
    workers = [c.start_worker(hosts["w1"]), c.start_worker(hosts["w2"])]
    r = client.post("/v1/probes", json=PROBE)
    assert r.status_code == 202, r.text
    probe_id = r.json()["id"]
    r = client.post("/v1/batches", json=(items := make_items(40, n_checks=2)))
    assert r.status_code == 202, r.text
    batch_id = r.json()["id"]
    journal = f"judge:probe:{probe_id}:journal"

    def runs_probe(proc: Any) -> bool:
        return bool(in_flight(tail(proc.log_path, 10**6), f"(probe:{probe_id}):run_probe"))

    # the worker that took the probe is the victim
    victim = wait_for(
        "no worker took the probe",
        lambda: next((w for w in workers if runs_probe(w)), None),
        c.logs,
    )
    survivor = next(w for w in workers if w is not victim)

    def mid_batch_and_probe() -> bool:
        log = tail(victim.log_path, 10**6)
        return (
            c.r.hlen(f"judge:batch:{batch_id}:results") >= 3
            and bool(in_flight(log, rf"{batch_id}:(\d+):score_item"))
            and runs_probe(victim)
            and c.r.hlen(journal) >= 1
        )

    wait_for("no moment with the victim mid-batch and mid-probe", mid_batch_and_probe, c.logs)
    victim.send_signal(signal.SIGKILL)  # the host is lost: its worker and its provider
    victim.provider.send_signal(signal.SIGKILL)
    victim.wait(20)
    log = tail(victim.log_path, 10**6)
    assert in_flight(log, rf"{batch_id}:(\d+):score_item") and runs_probe(victim)
    kept = dict(c.r.hgetall(journal))  # steps finished before the kill
    assert client.get(f"/v1/probes/{probe_id}").json()["status"] == "running"

    def batch_done() -> dict[str, Any] | None:
        info = client.get(f"/v1/batches/{batch_id}").json()
        return info if info["status"] == "done" else None

    info = wait_for("the batch did not finish", batch_done, c.logs)
    lines = [json.loads(x) for x in client.get(f"/v1/batches/{batch_id}/results").text.splitlines()]
    assert [line["index"] for line in lines] == list(range(40)), "lost or duplicated lines"
    check_results(lines, items)
    assert (info["done"], info["failed"]) == (40, 0)
    assert info["attempts"] > 40  # the victim's items ran again, and gave no second result

    def probe_done() -> dict[str, Any] | None:
        body = client.get(f"/v1/probes/{probe_id}").json()
        return body if body["status"] != "running" else None

    body = wait_for("the probe did not finish", probe_done, c.logs)
    assert body["status"] == "done", body.get("error")
    nodes = walk(body["tree"]["root"])
    assert sorted(n["id"] for n in nodes) == ["n0", "n0.0", "n0.1"]
    tests = [t for n in nodes for t in n["tests"]]
    assert [len(n["tests"]) for n in nodes] == [3, 3, 3]
    assert len({t["input"] for t in tests}) == 9, "an input was tested twice"
    assert all(len(t["images"]) == 1 and len(t["judge_verdicts"]) == 1 for t in tests)
    assert body["tree"]["metrics"]["n_inputs"] == 9 and body["tree"]["metrics"]["n_images"] == 9
    # steps the victim finished were reused, not redone: their journal entries are unchanged
    final = c.r.hgetall(journal)
    assert kept and all(final.get(k) == v for k, v in kept.items())
    assert re.search(rf"→ probe:{probe_id}:run_probe", tail(survivor.log_path, 10**6))
    client.close()
