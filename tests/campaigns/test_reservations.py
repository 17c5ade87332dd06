"""Reservations that cannot block a campaign: one pending task per annotator however many
``next`` calls arrive at once, leases that end and return their item to the pool, and the
admin's view and release of pending tasks (route and CLI) — against a real redis-server."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator

import httpx
import pytest
import redis.asyncio as aredis

from api.campaigns.serving import answer, next_task
from api.campaigns.store import CampaignStore
from api.core.redis_embedded import EmbeddedRedis
from eval.campaigns.cli import main
from eval.campaigns.ingest import ingest
from eval.campaigns.models import Answer, CampaignCreate
from eval.campaigns.record import CampaignRecord
from judge.config import JudgeSettings
from judge.errors import InputError
from tests.api.conftest import LiveService, assert_error
from tests.campaigns.helpers import invite, pairwise_body


async def _thirty_at_once(base_url: str, token: str) -> list[httpx.Response]:
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as client:
        calls = [client.get(f"/v1/label/{token}/next") for _ in range(30)]
        return list(await asyncio.gather(*calls))


def test_thirty_concurrent_next_calls_hold_one_task(
    service: LiveService, admin: httpx.Client, anon: httpx.Client
) -> None:
    body = pairwise_body("res-1", n_items=30, votes_per_item=1, validation="none")
    assert admin.post("/v1/campaigns", json=body).status_code == 201
    first, second = invite(admin, "res-1", 2)
    got = asyncio.run(_thirty_at_once(service.base_url, first["token"]))
    assert {r.status_code for r in got} == {200}
    assert len({r.json()["task"]["id"] for r in got}) == 1  # the same pending task, 30 times
    status = admin.get("/v1/campaigns/res-1").json()
    assert status["served"] == 1 and status["labels"] == 0
    held = admin.get("/v1/campaigns/res-1/reservations").json()["reservations"]
    assert [r["annotator"] for r in held] == ["a01"]
    assert anon.get(f"/v1/label/{second['token']}/next").status_code == 200


def test_admin_sees_and_releases_a_stuck_reservation(
    service: LiveService, admin: httpx.Client, anon: httpx.Client,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setenv("JUDGE_ADMIN_KEY", "admin")
    body = pairwise_body("res-2", n_items=1, votes_per_item=1, validation="none")
    assert admin.post("/v1/campaigns", json=body).status_code == 201
    holder, waiter = invite(admin, "res-2", 2)
    task = anon.get(f"/v1/label/{holder['token']}/next").json()["task"]
    assert anon.get(f"/v1/label/{waiter['token']}/next").status_code == 204  # the one item held
    url = service.base_url
    assert main(["reservations", "res-2", "--url", url]) == 0
    out = capsys.readouterr().out
    assert "res-2: 1 pending task(s)" in out and "a01\titem p0\tlease ends in" in out
    assert main(["reservations", "res-2", "--url", url, "--release-expired"]) == 0
    assert "released 0 reservation(s)" in capsys.readouterr().out  # the lease has not ended
    assert main(["reservations", "res-2", "--url", url, "--release", "a01"]) == 0
    assert "released 1 reservation(s): a01" in capsys.readouterr().out
    assert anon.get(f"/v1/label/{waiter['token']}/next").status_code == 200  # back in the pool
    late = anon.post(
        f"/v1/label/{holder['token']}/answers", json={"task": task["id"], "choice": "a"}
    )
    assert_error(late, 400, "task")
    assert admin.get("/v1/campaigns/res-2/reservations").json()["counts"] == {"released": 1}
    bad = admin.post("/v1/campaigns/res-2/reservations/release", json={})
    assert_error(bad, 400, "annotators")
    assert main(["reservations", "res-2", "--url", url, "--release", "a01",
                 "--release-expired"]) == 2  # fmt: skip
    assert "not both" in capsys.readouterr().err


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with EmbeddedRedis(tmp_path_factory.mktemp("lease-redis")) as url:
        yield url


class Clock:
    def __init__(self) -> None:
        self.t = 5_000.0

    def __call__(self) -> float:
        return self.t


async def _one_item_campaign(
    redis_url: str, cid: str
) -> tuple[aredis.Redis, CampaignStore, CampaignRecord]:
    """A campaign of one item, one vote, no validation and a 60 s lease, created."""
    redis = aredis.Redis.from_url(redis_url)
    store = CampaignStore(redis)
    body = pairwise_body(cid, n_items=1, votes_per_item=1, validation="none",
                         min_seconds=0.0, lease_seconds=60)  # fmt: skip
    record, images = ingest(CampaignCreate.model_validate(body), JudgeSettings())
    assert await store.create(record, images)
    return redis, store, record


def test_an_expired_lease_returns_its_item(redis_url: str) -> None:
    async def scenario() -> None:
        redis, store, record = await _one_item_campaign(redis_url, "lease-1")
        clock, rng = Clock(), random.Random(1)
        gone = await next_task(store, record, "gone", clock, rng)
        assert gone is not None and gone["item"] == "p0"
        assert await next_task(store, record, "late", clock, rng) is None  # p0 is reserved
        clock.t += 59.0
        assert (await next_task(store, record, "gone", clock, rng))["id"] == gone["id"]
        clock.t += 2.0  # the lease has ended: the next call returns p0 to the pool and takes it
        late = await next_task(store, record, "late", clock, rng)
        assert late is not None and late["item"] == "p0"
        assert await store.stats("lease-1") == {"expired": 1}
        with pytest.raises(InputError, match="not open"):
            await answer(store, record, "gone", Answer(task=gone["id"], choice="a"), clock)
        done = await answer(store, record, "late", Answer(task=late["id"], choice="b"), clock)
        assert done == {"accepted": True, "penalty_s": 0.0}
        assert await store.planned("lease-1") == {"p0": 1}
        assert await store.reservations("lease-1") == []
        await redis.aclose()

    asyncio.run(scenario())


def test_an_answer_after_its_lease_ended_is_refused(redis_url: str) -> None:
    """No other ``next`` swept the lease: the late answer is still refused (as the docs
    say), and the task is released there, its item back in the pool."""

    async def scenario() -> None:
        redis, store, record = await _one_item_campaign(redis_url, "lease-2")
        clock, rng = Clock(), random.Random(1)
        task = await next_task(store, record, "slow", clock, rng)
        assert task is not None
        clock.t += 61.0
        with pytest.raises(InputError, match="time ran out") as refused:
            await answer(store, record, "slow", Answer(task=task["id"], choice="a"), clock)
        assert refused.value.field == "task"
        assert await store.planned("lease-2") == {"p0": 0}  # back in the pool
        assert await store.reservations("lease-2") == []
        assert await store.stats("lease-2") == {"expired": 1}
        assert await store.attempts("lease-2") == []  # nothing counted
        again = await next_task(store, record, "slow", clock, rng)
        assert again is not None and again["item"] == "p0" and again["id"] != task["id"]
        await redis.aclose()

    asyncio.run(scenario())


def test_concurrent_calls_in_process_share_one_reservation(redis_url: str) -> None:
    """The same race without HTTP in between: 30 coroutines of one annotator."""

    async def scenario() -> None:
        redis = aredis.Redis.from_url(redis_url)
        store = CampaignStore(redis)
        body = pairwise_body("race-1", n_items=8, votes_per_item=1, validation="auto")
        record, images = ingest(CampaignCreate.model_validate(body), JudgeSettings())
        assert await store.create(record, images)
        record = await store.record("race-1")
        got = await asyncio.gather(*(next_task(store, record, "x") for _ in range(30)))
        assert len({t["id"] for t in got}) == 1
        assert sum((await store.planned("race-1")).values()) in (0, 1)  # 0: a validation task
        assert len(await store.reservations("race-1")) == 1
        await redis.aclose()

    asyncio.run(scenario())


def test_lease_seconds_is_checked() -> None:
    with pytest.raises(ValueError, match="lease_seconds"):
        CampaignCreate.model_validate(pairwise_body("x", lease_seconds=0))


def test_a_campaign_stored_before_the_queue_keeps_serving(redis_url: str) -> None:
    """Counts kept in the old ``planned`` hash move to the queue when the record is read."""

    async def scenario() -> None:
        redis = aredis.Redis.from_url(redis_url)
        store = CampaignStore(redis)
        body = pairwise_body("old-1", n_items=2, votes_per_item=1, validation="none")
        record, images = ingest(CampaignCreate.model_validate(body), JudgeSettings())
        assert await store.create(record, images)
        await redis.delete("judge:campaign:old-1:queue")
        await redis.hset("judge:campaign:old-1:planned", mapping={"p0": 1, "p1": 0})
        fresh = CampaignStore(redis)  # another process, reading the record first
        record = await fresh.record("old-1")
        assert await fresh.planned("old-1") == {"p0": 1, "p1": 0}
        task = await next_task(fresh, record, "x", rng=random.Random(2))
        assert task is not None and task["item"] == "p1"
        await redis.aclose()

    asyncio.run(scenario())
