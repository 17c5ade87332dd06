"""Batches end to end with real processes on loopback: a real redis-server, the API under
``judge serve``, ``judge worker`` processes and the fake provider as its own process.

The module's stack (API + two workers) serves the functional tests; the crash test builds its
own stack with a slow, faulty provider and kills a worker with SIGKILL mid-batch.

Example::

    $ .venv/bin/python -m pytest tests/api/test_batches.py -q
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from api.core.redis_embedded import EmbeddedRedis
from api.jobs.store import QUEUE_NAME, BatchKeys
from tests.api.conftest import assert_error, free_port
from tests.api.hosts import stop_all
from tests.conftest import png_data_url, submission
from tests.fakes.provider import spawn_fake_provider, stop_process

pytestmark = pytest.mark.slow  # minutes of work: make test-fast leaves it out (docs/testing.md)

REPO = Path(__file__).resolve().parents[2]
KEY = "batch-key"
OTHER_KEY = "other-key"
VICTIM_KEY = "victim-provider-key"  # the killed worker's key at the provider
AUTH = {"Authorization": f"Bearer {KEY}"}


def make_items(n: int, tag: str = "", n_checks: int = 1) -> list[dict[str, Any]]:
    """``n`` distinct small submissions with ids ``{tag}{i}`` (so order can be checked)."""
    tag = tag or uuid.uuid4().hex[:8]
    items = []
    for i in range(n):
        sub = submission(n_checks=n_checks, prompt=f"a red cube, variant {tag}-{i}")
        sub["images"] = [png_data_url("red", (8, 8))]
        sub["id"] = f"{tag}{i}"
        items.append(sub)
    return items


def tail(path: Path, chars: int = 3000) -> str:
    """The end of a process log, for assertion messages."""
    try:
        return path.read_text(errors="replace")[-chars:]
    except OSError:
        return "(no log)"


class Stack:
    """Redis, fake provider, API and workers as real processes; :meth:`close` ends them all."""

    def __init__(self, tmp: Path, *, latency: float, fault_rate: float, env: dict[str, str]):
        self.tmp = tmp
        self.redis = EmbeddedRedis(tmp / "redis")
        self.redis_url = self.redis.start()
        self.provider, self.provider_url = spawn_fake_provider(
            latency=latency,
            fault_rate=fault_rate,
            fault_kinds=("429", "500", "truncated"),
            seed=7,
        )
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")},
            "REDIS_URL": self.redis_url,
            "JUDGE_MODEL": "openai/fake-judge",
            "JUDGE_API_BASE": self.provider_url,
            "JUDGE_API_KEY": "k",
            "JUDGE_SERVE_API_KEYS": f"{KEY},{OTHER_KEY}",
            "JUDGE_DATA_DIR": str(tmp / "data"),
            "JUDGE_MEMORY_DIR": str(tmp / "memories"),
            "JUDGE_BACKOFF_BASE_S": "0.01",
            "JUDGE_BACKOFF_MAX_S": "0.05",
            "JUDGE_TIMEOUT_S": "60",  # a hang guard, not a speed check
            "JUDGE_WORKER_POLL_DELAY_S": "0.2",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "HF_HUB_OFFLINE": "1",
            "PYTHONPATH": str(REPO),
            **env,
        }
        self.api: subprocess.Popen[bytes] | None = None
        self.api_port = free_port()
        self.base_url = f"http://127.0.0.1:{self.api_port}"
        self.workers: list[subprocess.Popen[bytes]] = []
        self._logs = 0
        self.client = httpx.Client(base_url=self.base_url, headers=AUTH, timeout=30.0)
        self.r = redis.Redis.from_url(self.redis_url)

    def _spawn(
        self, args: list[str], name: str, env: dict[str, str] | None = None
    ) -> subprocess.Popen[bytes]:
        self._logs += 1
        log = open(self.tmp / f"{name}-{self._logs}.log", "wb")  # noqa: SIM115 - the child owns it
        proc = subprocess.Popen(
            [sys.executable, "-m", "judge.cli.main", *args],
            env={**self.env, **(env or {})},
            cwd=REPO,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        proc.log_path = Path(log.name)  # type: ignore[attr-defined]
        log.close()
        return proc

    def start_api(self, timeout_s: float = 120.0) -> None:
        """Start ``judge serve`` (no inline workers) and wait for ``/healthz``."""
        args = ["serve", "--port", str(self.api_port), "--workers-inline", "0"]
        self.api = self._spawn(args, "api")
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            assert self.api.poll() is None, tail(self.api.log_path)  # type: ignore[attr-defined]
            try:
                if httpx.get(f"{self.base_url}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise AssertionError("the API did not start:\n" + tail(self.api.log_path))  # type: ignore[attr-defined]

    def stop_api(self, sig: int = signal.SIGTERM) -> None:
        if self.api is not None and self.api.poll() is None:
            self.api.send_signal(sig)
            try:
                self.api.wait(15)
            except subprocess.TimeoutExpired:
                self.api.kill()
                self.api.wait()
        self.api = None

    def start_worker(
        self, wait: bool = True, env: dict[str, str] | None = None
    ) -> subprocess.Popen[bytes]:
        """Start ``judge worker`` (``env`` on top of the stack's); with ``wait``, return once
        it polls the queue."""
        proc = self._spawn(["worker"], "worker", env)
        self.workers.append(proc)
        deadline = time.monotonic() + 120
        while wait and "Starting worker" not in tail(proc.log_path, 100_000):  # type: ignore[attr-defined]
            assert proc.poll() is None, tail(proc.log_path)  # type: ignore[attr-defined]
            assert time.monotonic() < deadline, tail(proc.log_path)  # type: ignore[attr-defined]
            time.sleep(0.1)
        return proc

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{tail(p)}" for p in sorted(self.tmp.glob("*.log")))

    def submit(self, items: Any, **kwargs: Any) -> str:
        if not kwargs:
            kwargs = {"json": items}
        resp = self.client.post("/v1/batches", **kwargs)
        assert resp.status_code == 202, resp.text[:1000]
        return resp.json()["id"]

    def wait_done(self, batch_id: str, timeout_s: float = 60.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while True:
            info = self.client.get(f"/v1/batches/{batch_id}").json()
            if info["status"] == "done":
                return info
            if time.monotonic() > deadline:
                raise AssertionError(f"not done in {timeout_s} s: {info}\n{self.logs()}")
            time.sleep(0.2)

    def results(self, batch_id: str, **params: Any) -> list[dict[str, Any]]:
        resp = self.client.get(f"/v1/batches/{batch_id}/results", params=params)
        assert resp.status_code == 200, resp.text[:500]
        assert resp.headers["content-type"].startswith("application/x-ndjson")
        return [json.loads(line) for line in resp.text.splitlines()]

    def batch_keys(self) -> set[bytes]:
        return set(self.r.scan_iter("judge:batch:*"))

    def close(self) -> None:
        self.client.close()
        stop_all(self.workers, 15)
        self.stop_api()
        stop_process(self.provider)
        self.r.close()
        self.redis.stop()


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Redis, a fast fake provider with 10 % faults, the API and two workers."""
    s = Stack(
        tmp_path_factory.mktemp("batches"),
        latency=0.01,
        fault_rate=0.1,
        env={"JUDGE_SERVE_MAX_BATCH_ITEMS": "100", "JUDGE_WORKER_CONCURRENCY": "4"},
    )
    try:
        s.start_api()
        s.start_worker(wait=False)
        s.start_worker()
        yield s
    finally:
        s.close()


def gate(provider_url: str, *, hold: bool) -> None:
    """Hold every call at the fake provider (or let them all go on)."""
    root = provider_url.removesuffix("/v1")
    resp = httpx.post(f"{root}/_admin/gate", json={"hold": hold}, timeout=10)
    assert resp.status_code == 200 and resp.json()["hold"] is hold, resp.text


def held_by(provider_url: str) -> dict[str, int]:
    """Calls held at the fake provider, by API key."""
    root = provider_url.removesuffix("/v1")
    return httpx.get(f"{root}/_admin/stats", timeout=10).json()["held_by"]


def check_results(lines: list[dict[str, Any]], items: list[dict[str, Any]]) -> None:
    """One result line per item, in input order, each the item's own result."""
    assert [line["index"] for line in lines] == list(range(len(items)))
    for line, item in zip(lines, items, strict=True):
        assert "result" in line, line
        assert line["result"]["submission_id"] == item["id"]
        assert line["result"]["status"] in ("scored", "partial")


def test_json_list_batch_is_scored_in_input_order(stack: Stack) -> None:
    items = make_items(8)
    batch_id = stack.submit(items)
    info = stack.client.get(f"/v1/batches/{batch_id}").json()
    assert info["total"] == 8 and info["status"] in ("queued", "running", "done")
    streamed = stack.results(batch_id, wait="true")  # waits for every item
    check_results(streamed, items)
    info = stack.wait_done(batch_id)
    assert (info["done"], info["failed"], info["progress"]) == (8, 0, 1.0)
    assert info["finished_at"] >= info["created_at"]
    check_results(stack.results(batch_id), items)


def test_wrapped_form_jsonl_and_multipart_uploads(stack: Stack) -> None:
    items = make_items(3)
    wrapped = stack.submit(None, json={"items": items, "options": {"retrieval": "none"}})
    jsonl = "\n".join(json.dumps(i) for i in items) + "\n"
    as_jsonl = stack.submit(
        None, content=jsonl.encode(), headers={"content-type": "application/x-ndjson"}
    )
    uploaded = stack.submit(
        None,
        files={"file": ("items.jsonl", jsonl.encode(), "application/jsonl")},
        data={"options": json.dumps({"checkpoint_batching": "per_modality"})},
    )
    for batch_id in (wrapped, as_jsonl, uploaded):
        stack.wait_done(batch_id)
        check_results(stack.results(batch_id), items)
    opts = json.loads(stack.r.hget(BatchKeys.of(wrapped).meta, "options"))
    assert opts == {"retrieval": "none"}


def test_bad_items_reject_the_whole_batch_and_store_nothing(stack: Stack) -> None:
    before = (stack.batch_keys(), stack.r.zcard(QUEUE_NAME))
    items = make_items(5)
    items[3]["task"]["category"] = "XX"
    items[4]["prompt"] = 7
    resp = stack.client.post("/v1/batches", json=items)
    err = assert_error(resp, 400, "items[3].task.category")
    assert "1 more bad item" in err["message"]

    wrapped = [{"submission": items[0], "options": {"retrieval": "bogus"}}]
    assert_error(stack.client.post("/v1/batches", json=wrapped), 400, "items[0].options.retrieval")
    assert_error(
        stack.client.post("/v1/batches", json={"items": items[:1], "options": {"skills": ["x"]}}),
        400,
        "options.skills",
    )
    bad_line = json.dumps(items[0]) + "\n" + "{not json\n"
    resp = stack.client.post(
        "/v1/batches", content=bad_line, headers={"content-type": "application/x-ndjson"}
    )
    assert_error(resp, 400, "items[1]")
    assert_error(stack.client.post("/v1/batches", json=[items[0], [1, 2]]), 400, "items[1]")
    assert_error(stack.client.post("/v1/batches", json=[]), 400, "items")
    assert_error(stack.client.post("/v1/batches", json={"items": []}), 400, "items")
    assert_error(stack.client.post("/v1/batches", json={"submission": items[0]}), 400, "(body)")
    oops = stack.client.post(
        "/v1/batches", content=b"{oops", headers={"content-type": "application/json"}
    )
    assert_error(oops, 400, "(body)")
    assert_error(stack.client.post("/v1/batches", files={"other": ("a", b"x")}), 400, "file")
    too_many = [items[0]] * 101
    err = assert_error(stack.client.post("/v1/batches", json=too_many), 413, "items")
    assert "limit of 100" in err["message"]
    assert (stack.batch_keys(), stack.r.zcard(QUEUE_NAME)) == before


def test_unknown_foreign_and_deleted_batches(stack: Stack) -> None:
    for path in ("/v1/batches/" + "0" * 32, "/v1/batches/not-an-id", "/v1/batches/x/results"):
        assert_error(stack.client.get(path), 404, "id")
    assert_error(stack.client.delete("/v1/batches/" + "f" * 32), 404, "id")
    assert httpx.get(f"{stack.base_url}/v1/batches/{'0' * 32}").status_code == 401

    batch_id = stack.submit(make_items(2))
    other = {"Authorization": f"Bearer {OTHER_KEY}"}
    resp = httpx.get(f"{stack.base_url}/v1/batches/{batch_id}", headers=other)
    assert_error(resp, 404, "id")  # someone else's batch does not exist for you

    assert stack.client.delete(f"/v1/batches/{batch_id}").status_code == 204
    info = stack.client.get(f"/v1/batches/{batch_id}").json()
    assert info["status"] == "deleted" and info["total"] == 2
    assert_error(stack.client.get(f"/v1/batches/{batch_id}/results"), 410, "id")
    keys = BatchKeys.of(batch_id)
    assert not stack.r.exists(keys.meta, keys.items, keys.results, keys.failures)
    assert stack.r.zscore(QUEUE_NAME, f"{batch_id}:1") is None
    assert stack.client.delete(f"/v1/batches/{batch_id}").status_code == 204


def test_unreadable_image_fails_its_item_only(stack: Stack) -> None:
    items = make_items(3)
    items[1]["images"] = ["data:image/png;base64,AAAA"]  # valid JSON, not an image
    batch_id = stack.submit(items)
    info = stack.wait_done(batch_id)
    assert (info["done"], info["failed"]) == (2, 1)
    lines = stack.results(batch_id)
    assert [line["index"] for line in lines] == [0, 1, 2]
    assert lines[1]["error"]["field"] == "items[1].images[0]"  # the item, then its field
    assert lines[1]["error"]["code"] == "invalid_input"
    assert "result" in lines[0] and "result" in lines[2]


def test_batch_survives_an_api_kill(stack: Stack) -> None:
    items = make_items(12)
    batch_id = stack.submit(items)
    stack.stop_api(signal.SIGKILL)  # the workers carry on without the API
    stack.start_api()
    info = stack.wait_done(batch_id)
    assert (info["done"], info["failed"]) == (12, 0)
    check_results(stack.results(batch_id), items)
    stack.stop_api()  # a clean restart, too
    stack.start_api()
    assert stack.client.get(f"/v1/batches/{batch_id}").json()["done"] == 12
    check_results(stack.results(batch_id), items)


def test_worker_killed_mid_batch_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    """60 items, 20 % provider faults at 0.2 s latency, two workers; SIGKILL one mid-item."""
    s = Stack(
        tmp_path,
        latency=0.2,
        fault_rate=0.2,
        env={
            "JUDGE_WORKER_CONCURRENCY": "4",
            "JUDGE_WORKER_JOB_TIMEOUT_S": "10",  # arq's own lock: 10 + 10 s
            "JUDGE_WORKER_LEASE_S": "4",  # our lease while an item runs
        },
    )
    try:
        s.start_api()
        victim = s.start_worker(wait=False, env={"JUDGE_API_KEY": VICTIM_KEY})
        s.start_worker()
        while "Starting worker" not in tail(victim.log_path, 100_000):  # type: ignore[attr-defined]
            time.sleep(0.1)
        total = 60
        items = make_items(total, n_checks=2)
        batch_id = s.submit(items)
        keys = BatchKeys.of(batch_id)

        def victim_in_flight() -> set[str]:
            log = tail(victim.log_path, 1_000_000)  # type: ignore[attr-defined]
            started = set(re.findall(rf"→ {batch_id}:(\d+):score_item", log))
            return started - set(re.findall(rf"← {batch_id}:(\d+):score_item", log))

        # kill mid-batch *and* mid-item: once 12 results landed the fake holds every call;
        # the victim uses a key of its own, so a held call with that key is an item it has
        # started and cannot finish before the kill
        deadline = time.monotonic() + 240  # a hang guard, not a speed check
        while s.r.hlen(keys.results) < 12:
            assert time.monotonic() < deadline, s.logs()
            time.sleep(0.05)
        gate(s.provider_url, hold=True)
        while not held_by(s.provider_url).get(VICTIM_KEY):
            assert time.monotonic() < deadline, s.logs()
            time.sleep(0.05)
        victim.send_signal(signal.SIGKILL)
        victim.wait(10)
        killed_at = time.monotonic()
        in_flight = victim_in_flight()
        assert in_flight, "the killed worker had no item in flight"
        gate(s.provider_url, hold=False)
        s.start_worker(wait=False)  # a replacement, as a supervisor would start
        info = s.wait_done(batch_id, timeout_s=60)
        recovery = time.monotonic() - killed_at
        print(
            f"killed with {len(in_flight)} item(s) in flight; done {recovery:.1f} s later: {info}"
        )
        lines = s.results(batch_id)
        indices = [line["index"] for line in lines]
        assert indices == list(range(total)), "lost or duplicated result lines"
        assert s.r.hlen(keys.results) == total and s.r.hlen(keys.failures) == 0
        assert (info["done"], info["failed"]) == (total, 0)
        check_results(lines, items)
        # the killed worker's items ran again; re-runs never added a second result
        assert info["attempts"] > total, info
        # how soon the replacement finishes is the soak benchmark's figure
        # (tests/api/soak_batch.py), not a wall-clock bound for a loaded CI machine
    finally:
        s.close()


# -- the job function and inline workers, in-process against a real redis-server -----------


class FlakyJudge:
    """A Judge whose ``arun_checked`` (what the worker runs) raises ``RuntimeError`` for its
    first ``failures`` calls; everything else is the wrapped judge's."""

    def __init__(self, judge: Any, failures: int):
        self.judge, self.failures, self.calls = judge, failures, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.judge, name)

    async def arun_checked(self, checked: Any, **kwargs: Any) -> Any:
        self.calls += 1
        if self.calls <= self.failures:
            raise RuntimeError(f"boom {self.calls}")
        return await self.judge.arun_checked(checked, **kwargs)


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    server = EmbeddedRedis(tmp_path / "redis")
    try:
        yield server.start()
    finally:
        server.stop()


async def _new_batch(url: str, n: int) -> tuple[Any, Any, str]:
    from arq import create_pool
    from arq.connections import RedisSettings

    from api.jobs.store import BatchStore

    pool = await create_pool(RedisSettings.from_dsn(url))
    store = BatchStore(pool, ttl_s=600)
    items = [json.dumps(item) for item in make_items(n)]
    batch_id = await store.create(items, {}, owner="t")
    await store.enqueue(pool, batch_id, n)
    return pool, store, batch_id


async def _run_burst(url: str, judge: Any) -> None:
    from api.core.settings import ServiceSettings
    from api.jobs.worker import BatchWorker, WorkerTuning, worker_options

    options = worker_options(ServiceSettings(redis_url=url), url, WorkerTuning(concurrency=2))
    options["ctx"]["judge"] = judge
    options.update(burst=True, handle_signals=False, poll_delay=0.01)
    worker = BatchWorker(**options)
    try:
        await worker.main()
    finally:
        await worker.close()


async def test_an_item_that_raises_is_retried_then_scored(
    redis_url: str, make_judge: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("api.jobs.worker.RETRY_BASE_S", 0.01)
    pool, store, batch_id = await _new_batch(redis_url, 1)
    judge = FlakyJudge(make_judge(), failures=2)
    await _run_burst(redis_url, judge)
    info = await store.info(batch_id, None)
    assert (info.done, info.failed, info.attempts, judge.calls) == (1, 0, 3, 3)
    lines = [json.loads(line) async for line in store.lines(batch_id, 1)]
    assert lines[0]["result"]["status"] in ("scored", "partial")
    await pool.aclose()


async def test_an_item_that_always_raises_fails_after_max_tries(
    redis_url: str, make_judge: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from api.jobs.worker import ITEM_MAX_TRIES

    monkeypatch.setattr("api.jobs.worker.RETRY_BASE_S", 0.01)
    pool, store, batch_id = await _new_batch(redis_url, 2)
    judge = FlakyJudge(make_judge(), failures=10_000)
    await _run_burst(redis_url, judge)
    info = await store.info(batch_id, None)
    assert (info.status, info.done, info.failed) == ("done", 0, 2)
    assert info.attempts == 2 * ITEM_MAX_TRIES
    lines = [json.loads(line) async for line in store.lines(batch_id, 2)]
    assert [line["error"]["code"] for line in lines] == ["scoring_failed"] * 2
    assert "boom" in lines[0]["error"]["message"]
    assert await pool.zcard(QUEUE_NAME) == 0
    await pool.aclose()


async def test_an_item_whose_worker_died_each_time_is_given_up(
    redis_url: str, make_judge: Any
) -> None:
    from api.jobs.worker import ITEM_MAX_TRIES

    pool, store, batch_id = await _new_batch(redis_url, 1)
    await pool.set(f"arq:retry:{batch_id}:0", ITEM_MAX_TRIES)  # five crashed tries so far
    judge = FlakyJudge(make_judge(), failures=0)
    await _run_burst(redis_url, judge)
    lines = [json.loads(line) async for line in store.lines(batch_id, 1)]
    assert lines[0]["error"]["code"] == "gave_up" and judge.calls == 0
    await pool.aclose()


async def test_a_job_that_runs_again_writes_nothing_twice(redis_url: str, make_judge: Any) -> None:
    from api.core.settings import ServiceSettings
    from api.jobs.worker import score_item, startup

    pool, store, batch_id = await _new_batch(redis_url, 1)
    await _run_burst(redis_url, make_judge())
    first = await pool.hget(BatchKeys.of(batch_id).results, "0")
    ctx: dict[str, Any] = {"redis": pool, "settings": ServiceSettings(), "judge": make_judge()}
    await startup(ctx)
    ctx.update(job_id=f"{batch_id}:0", job_try=1)
    assert await score_item(ctx, batch_id, 0) == "finished"  # redelivered after success
    assert await store.record(batch_id, 0, '{"late": true}', "result") == 0
    assert await store.record(batch_id, 0, '{"code": "x"}', "error") == 0
    assert await pool.hget(BatchKeys.of(batch_id).results, "0") == first
    assert int(await pool.hget(BatchKeys.of(batch_id).meta, "duplicates")) == 2
    assert await score_item(ctx, "0" * 32, 0) == "gone"  # deleted or expired batch
    await pool.aclose()


async def test_inline_workers_run_inside_the_api_loop(
    redis_url: str, make_judge: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    from api.core.settings import ServiceSettings
    from api.jobs.worker import start_inline_workers, stop_inline_workers
    from api.state import ServiceState

    monkeypatch.setenv("JUDGE_WORKER_CONCURRENCY", "2")  # the workers' own section
    state = ServiceState(settings=ServiceSettings(inline_workers=2))
    state.redis_url, state.judge = redis_url, make_judge()
    tasks = await start_inline_workers(state)
    assert len(tasks) == 2
    try:
        pool, store, batch_id = await _new_batch(redis_url, 4)
        for _ in range(200):
            info = await store.info(batch_id, None)
            if info.status == "done":
                break
            await asyncio.sleep(0.05)
        assert (info.done, info.failed) == (4, 0)
        await pool.aclose()
    finally:
        await stop_inline_workers(tasks)
    assert all(t.done() for t in tasks)
    assert (
        await start_inline_workers(ServiceState(settings=ServiceSettings(inline_workers=0))) == []
    )
