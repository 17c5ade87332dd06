"""Hostile JSON bodies on the routes that read raw JSON (issue 22, findings 6 and 7): huge
integers, deep nesting and lone surrogates in ``/v1/probes``, ``/v1/batches`` (JSON and
JSONL) and the probe overrides route answer 400 naming the problem, as ``/v1/score`` does;
a lone surrogate stored before the fix never makes a page or a JSON answer fail."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import redis.asyncio as aredis

from api.core.deps import ANONYMOUS
from api.jobs.store import owner_tag
from api.probes.store import ProbeStore
from tests.api.conftest import LiveService, assert_error
from tests.api.test_batches import make_items

HUGE_INT = b"1" + b"0" * 5000
JSON = {"content-type": "application/json"}
JSONL = {"content-type": "application/x-ndjson"}


def _stored_probe(open_service: LiveService, topic: str) -> str:
    """A probe record written straight to the store (as the old service accepted it)."""

    async def put() -> str:
        client = aredis.Redis.from_url(open_service.redis_url)
        try:
            store = ProbeStore(client, 3600)
            params = {"topic": topic, "backend": "none", "depth": 1}
            probe_id = await store.create(params, "none", owner_tag(ANONYMOUS))
            await client.hset(store.key(probe_id, "meta"), "status", "failed")
            return probe_id
        finally:
            await client.aclose()

    return asyncio.run(put())


def _probe_bodies() -> dict[str, tuple[bytes, str, str]]:
    return {
        "huge-int": (
            b'{"topic": "t", "backend": "b", "depth": ' + HUGE_INT + b"}",
            "(body)",
            "digits",
        ),
        "deep": (b'{"topic": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "(body)", "nested"),
        "deep-but-parsable": (b'{"topic": ' + b"[" * 200 + b"]" * 200 + b"}", "(body)", "nested"),
        "surrogate": (b'{"topic": "a \\ud800 b", "backend": "b"}', "topic", "surrogate"),
        "surrogate-key": (b'{"topic": "t", "\\udfff": 1}', "(body)", "surrogate"),
    }


@pytest.mark.parametrize("case", list(_probe_bodies()))
def test_probe_bodies_are_refused_naming_the_problem(open_client: httpx.Client, case: str) -> None:
    body, field, word = _probe_bodies()[case]
    err = assert_error(open_client.post("/v1/probes", content=body, headers=JSON), 400, field)
    assert word in err["message"], err


def _batch_bodies() -> dict[str, tuple[bytes, dict[str, str], str, str]]:
    item = json.dumps(make_items(1)[0]).encode()
    return {
        "json-huge-int": (b'{"items": [' + HUGE_INT + b"]}", JSON, "(body)", "digits"),
        "json-deep": (b"[" * 100_000 + b"]" * 100_000, JSON, "(body)", "nested"),
        "json-surrogate": (
            b'[{"task": {"id": "t", "category": "OE", "brief": "\\ud800"}, "prompt": "p"}]',
            JSON,
            "items[0].task.brief",
            "surrogate",
        ),
        "jsonl-huge-int": (item + b"\n" + HUGE_INT + b"\n", JSONL, "items[1]", "digits"),
        "jsonl-deep": (item + b"\n" + b"[" * 100_000 + b"]" * 100_000, JSONL, "items[1]", "nested"),
        "jsonl-surrogate": (
            item + b'\n{"prompt": "\\ud800"}\n',
            JSONL,
            "items[1].prompt",
            "surrogate",
        ),
    }


@pytest.mark.parametrize("case", list(_batch_bodies()))
def test_batch_bodies_are_refused_naming_the_problem(open_client: httpx.Client, case: str) -> None:
    body, headers, field, word = _batch_bodies()[case]
    err = assert_error(open_client.post("/v1/batches", content=body, headers=headers), 400, field)
    assert word in err["message"], err


@pytest.mark.parametrize(
    "body, field, word",
    [
        (
            b'{"node": "n0", "test": ' + HUGE_INT + b', "image": 0, "verdict": true}',
            "(body)",
            "digits",
        ),
        (b"[" * 100_000 + b"]" * 100_000, "(body)", "nested"),
        (
            b'{"node": "n0", "test": 0, "image": 0, "verdict": true, "note": "\\ud800"}',
            "note",
            "surrogate",
        ),
    ],
    ids=["huge-int", "deep", "surrogate"],
)
def test_override_bodies_are_refused_naming_the_problem(
    open_service: LiveService, open_client: httpx.Client, body: bytes, field: str, word: str
) -> None:
    probe_id = _stored_probe(open_service, "counting")
    r = open_client.post(f"/v1/probes/{probe_id}/overrides", content=body, headers=JSON)
    err = assert_error(r, 400, field)
    assert word in err["message"], err


def test_a_stored_lone_surrogate_never_breaks_a_page(
    open_service: LiveService, open_client: httpx.Client
) -> None:
    probe_id = _stored_probe(open_service, "bad \ud800 topic")
    listing = open_client.get("/v1/probes")
    assert listing.status_code == 200, listing.text
    assert any(p["id"] == probe_id for p in listing.json()["probes"])
    one = open_client.get(f"/v1/probes/{probe_id}")
    assert one.status_code == 200, one.text
    assert one.json()["params"]["topic"] == "bad \ud800 topic"  # escaped JSON, read back as sent
    for path in ("/ui/probes/", f"/ui/probes/{probe_id}"):
        page = open_client.get(path)
        assert page.status_code == 200, (path, page.text[:300])
        assert "bad \\ud800 topic" in page.text, path
