"""Serving that does not grow with the campaign: images as immutable content (strong ETag,
long caching, 304 on revalidation), the least-voted item first read off Redis's sorted set,
and the load benchmark's open-loop mode with its CPU-per-answer figure."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis.asyncio as aredis

from api.campaigns.serving import answer, next_task
from api.campaigns.store import CampaignStore
from api.campaigns.streams import CHUNK, excluded_annotators, table_parts
from api.core.redis_embedded import EmbeddedRedis
from benchmarks import campaign_load, campaign_store
from eval.campaigns.ingest import ingest
from eval.campaigns.models import Answer, CampaignCreate
from judge.config import JudgeSettings
from tests.api.conftest import LiveService, assert_error
from tests.campaigns.helpers import invite, pairwise_body

JSON = {"Content-Type": "application/json"}


def test_images_are_immutable_content(admin: httpx.Client, anon: httpx.Client) -> None:
    body = pairwise_body("img-1", n_items=1, votes_per_item=2, validation="none")
    assert admin.post("/v1/campaigns", json=body).status_code == 201
    one, two = invite(admin, "img-1", 2)
    shown = anon.get(f"/v1/label/{one['token']}/next").json()["task"]["images"]
    url = shown["a"]
    first = anon.get(url)
    key = url.rsplit("/", 1)[-1]
    assert first.status_code == 200 and first.headers["etag"] == f'"{key}"'
    # no credential in the URL: one cacheable URL per image, whoever is shown it
    assert url == f"/v1/campaign-images/img-1/{key}" and one["token"] not in url
    assert first.headers["cache-control"] == "public, max-age=31536000, immutable"
    seen = anon.get(f"/v1/label/{two['token']}/next").json()["task"]["images"]
    # the same item for the second person: the same images under URLs of their own
    assert not set(seen.values()) & set(shown.values())
    assert {anon.get(u).content for u in seen.values()} == {
        anon.get(u).content for u in shown.values()
    }
    assert anon.get(f"/v1/label/{one['token']}/next").json()["task"]["images"] == shown  # reload
    again = anon.get(url, headers={"If-None-Match": f'"{key}"'})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == f'"{key}"'
    other = anon.get(url, headers={"If-None-Match": '"0123"'})
    assert other.status_code == 200 and other.content == first.content
    missing = url.replace(key, "0" * 24)
    assert_error(anon.get(missing, headers={"If-None-Match": '"' + "0" * 24 + '"'}), 404, "image")
    assert_error(anon.get(f"/v1/campaign-images/nope/{key}"), 404, "image")
    assert_error(anon.get(f"/v1/campaign-images/img-1/{key[:-1]}Z"), 404, "image")
    assert_error(anon.get(f"/v1/campaign-images/img-1/{'0' * 40}"), 404, "image")  # forged
    admin_url = f"/v1/campaigns/img-1/images/{key}"
    assert admin.get(admin_url, headers={"If-None-Match": f'"{key}"'}).status_code == 304


def test_validation_images_have_the_same_urls_as_item_images(
    admin: httpx.Client, anon: httpx.Client
) -> None:
    """A bot reading URLs learns nothing: validation and item images share one path shape,
    and no URL is shown twice (each image has an alias of its own in every task)."""
    body = pairwise_body("img-2", n_items=6, votes_per_item=1, min_seconds=0.0)
    assert admin.post("/v1/campaigns", json=body).status_code == 201
    token = invite(admin, "img-2", 1)[0]["token"]
    urls = []
    for _ in range(12):
        got = anon.get(f"/v1/label/{token}/next")
        if got.status_code == 204:
            break
        task = got.json()["task"]
        urls += task["images"].values()
        anon.post(f"/v1/label/{token}/answers", json={"task": task["id"], "choice": "a"})
    attempts = [json.loads(x) for x in admin.get("/v1/campaigns/img-2/attempts").text.splitlines()]
    assert any(a["validation"] for a in attempts) and not all(a["validation"] for a in attempts)
    assert all(re.fullmatch(r"/v1/campaign-images/img-2/[0-9a-f]{40}", u) for u in urls), urls
    assert len(set(urls)) == len(urls)


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with EmbeddedRedis(tmp_path_factory.mktemp("scale-redis")) as url:
        yield url


async def created(store: CampaignStore, cid: str, n_items: int) -> dict:
    """A pairwise campaign of ``n_items`` items, 2 votes each, no validation, in ``store``."""
    body = pairwise_body(cid, n_items=n_items, votes_per_item=2, validation="none",
                         min_seconds=0.0)  # fmt: skip
    record, images = ingest(CampaignCreate.model_validate(body), JudgeSettings())
    assert await store.create(record, images)
    found = await store.record(cid)
    assert found is not None
    return found


def test_the_least_voted_item_comes_first(redis_url: str) -> None:
    """Eight items, 2 votes each: every item gets its first vote before any its second, and
    nobody sees an item twice."""

    async def scenario() -> list[str]:
        redis = aredis.Redis.from_url(redis_url)
        store = CampaignStore(redis)
        record = await created(store, "least-1", n_items=8)
        rng, order = random.Random(3), []
        seen: dict[str, set[str]] = {f"w{n}": set() for n in range(4)}
        while True:
            served = 0
            for who in seen:
                task = await next_task(store, record, who, rng=rng)
                if task is None:
                    continue
                assert task["item"] not in seen[who]
                seen[who].add(task["item"])
                order.append(task["item"])
                got = await answer(store, record, who, Answer(task=task["id"], choice="a"))
                assert got["accepted"]
                served += 1
            if not served:
                break
        await redis.aclose()
        return order

    order = asyncio.run(scenario())
    assert len(order) == 16 and sorted(set(order[:8])) == [f"p{i}" for i in range(8)]


def test_an_export_writes_only_rows_its_qc_pass_saw(redis_url: str) -> None:
    """Answers logged between an export's QC pass and its rows pass wait for the next export:
    both passes stop at the entry the QC pass read to."""

    async def scenario() -> tuple[int, int]:
        redis = aredis.Redis.from_url(redis_url)
        store = CampaignStore(redis)
        record = await created(store, "bound-1", n_items=4)

        async def vote(who: str) -> None:
            task = await next_task(store, record, who, rng=random.Random(1))
            assert task is not None
            got = await answer(store, record, who, Answer(task=task["id"], choice="a"))
            assert got["accepted"]

        await vote("w0")
        await vote("w1")
        checked = await excluded_annotators(store, record)
        await vote("w2")  # lands after QC read the log
        rows = b"".join([p async for p in table_parts(store, record, checked, "jsonl")])
        later = await excluded_annotators(store, record)
        again = b"".join([p async for p in table_parts(store, record, later, "jsonl")])
        await redis.aclose()
        return rows.count(b"\n"), again.count(b"\n")

    assert asyncio.run(scenario()) == (2, 3)


@pytest.mark.slow
def test_open_loop_benchmark_reports_latency_and_cpu(service: LiveService) -> None:
    """The benchmark's open loop against this module's service (in this process, so the CPU
    figure here includes the load generator; ``judge serve`` in a process of its own is
    what ``python -m benchmarks.campaign_load`` measures)."""
    report = asyncio.run(
        campaign_load.drive(service.base_url, annotators=4, pairs=40, votes=2,
                            pid=os.getpid(), think_s=0.2, duration_s=1.5, revalidate=True)
    )  # fmt: skip
    assert report["mode"] == "open" and report["answers"] > 0
    assert report["cpu_ms_per_answer"]["service"] > 0
    assert report["cpu_ms_per_answer"]["load_generator"] > 0 and len(report["load_average"]) == 3
    assert report["next_ms"]["n"] >= report["answers"] and report["page_ms"]["n"] == 4
    # each task's two images: fetched once, then revalidated (304) — all counted
    assert report["image_ms"]["n"] >= 2 * report["answers"]
    assert report["images"] == "revalidated"


def test_closed_loop_benchmark_uses_cached_images(service: LiveService) -> None:
    """The closed loop (annotators answer at once) until the campaign is done; an image
    already held is not asked for again (as a browser treats an ``immutable`` response)."""
    report = asyncio.run(
        campaign_load.drive(
            service.base_url, annotators=3, pairs=12, votes=1, pid=os.getpid(), cid="load-closed"
        )
    )
    assert report["mode"] == "closed" and report["answers"] >= 12
    assert report["images"] == "cached (immutable)" and report["image_ms"]["n"] <= 40


def test_store_benchmark_runs_the_serving_path(redis_url: str) -> None:
    """``python -m benchmarks.campaign_store`` at a tiny size: votes through next/answer."""
    report = asyncio.run(campaign_store.run(redis_url, 200, 4, n_items=60))
    assert report["votes"] == 200 and report["jsonl_lines"] == 200
    assert report["csv_lines"] == 201  # the header and every vote
    assert report["next_ms"]["p50"] > 0 and report["items"] == 60
    assert report["peak_rss_during_export_mb"] >= report["rss_before_export_mb"] > 0


def test_store_benchmark_fills_the_log_and_streams_it(tmp_path: Path) -> None:
    """``--fill``: votes written straight into the log (more than one export chunk), then
    next + answer calls on the filled campaign and the streamed export of every vote."""
    with EmbeddedRedis(tmp_path) as url:
        report = asyncio.run(
            campaign_store.run(url, CHUNK + 500, 4, n_items=300, filled=True, probe=40)
        )
    assert report["filled"] and report["votes"] == CHUNK + 540 and report["next_ms"]["n"] == 40
    assert report["jsonl_lines"] == CHUNK + 540 and report["csv_lines"] == CHUNK + 541


def test_the_lean_label_routes_answer_as_the_regular_ones(
    admin: httpx.Client, anon: httpx.Client
) -> None:
    """``next``, ``answers`` and images skip FastAPI (api/campaigns/fast.py) but keep its
    answers: another query parameter, a body that is not an answer and a refused link read
    the same; the metrics name each route by its template, never ``unmatched``."""
    body = pairwise_body("lean-1", n_items=2, votes_per_item=1, validation="none",
                         min_seconds=0.0)  # fmt: skip
    assert admin.post("/v1/campaigns", json=body).status_code == 201
    token = invite(admin, "lean-1", 1)[0]["token"]
    task = anon.get(f"/v1/label/{token}/next").json()["task"]  # through FastAPI: a new link
    again = anon.get(f"/v1/label/{token}/next", params={"lang": "fr"})  # the lean path
    assert again.json()["task"]["id"] == task["id"]
    assert again.headers["cache-control"] == "no-store" and "x-request-id" in again.headers
    assert anon.get(f"/v1/label/{token}/next", params={"x": "1"}).json()["task"]["id"] == task["id"]
    assert_error(anon.get(f"/v1/label/{token}/next", params={"lang": "x/"}), 400, "query.lang")
    post = f"/v1/label/{token}/answers"
    assert_error(anon.post(post, content=b"{", headers=JSON), 400, "(body)")
    assert_error(anon.post(post, json={"task": task["id"], "choice": "c"}), 400, "choice")
    assert anon.post(post, json={"task": task["id"], "choice": "b"}).json()["accepted"]
    assert anon.get(task["images"]["a"]).status_code == 200
    admin.post("/v1/campaigns/lean-1/status", json={"status": "closed"})
    assert_error(anon.get(f"/v1/label/{token}/next"), 410, "token")
    metrics = admin.get("/metrics").text
    for template in ("/v1/label/{token}/next", "/v1/label/{token}/answers",
                     "/v1/campaign-images/{cid}/{key}"):  # fmt: skip
        assert f'route="{template}"' in metrics, template
