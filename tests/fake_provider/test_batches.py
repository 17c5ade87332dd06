"""The fake provider's OpenAI batch API (``/v1/files``, ``/v1/batches``), driven by litellm."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import litellm
import pytest

from tests.fakes.provider import FakeProvider, default_answer

litellm.suppress_debug_info = True
SCHEMA = {
    "type": "json_schema",
    "json_schema": {
        "name": "s",
        "schema": {
            "type": "object",
            "properties": {"score": {"type": "integer", "minimum": 1, "maximum": 5}},
            "required": ["score"],
        },
    },
}


def line(n: int, text: str | None = None) -> dict[str, Any]:
    body = {
        "model": "fake",
        "messages": [{"role": "user", "content": text or f"rate picture {n}"}],
        "response_format": SCHEMA,
    }
    return {"custom_id": f"r{n}", "method": "POST", "url": "/v1/chat/completions", "body": body}


def jsonl(rows: list[Any]) -> bytes:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows).encode()


def kw(provider: FakeProvider) -> dict[str, Any]:
    return {"custom_llm_provider": "openai", "api_base": provider.base_url, "api_key": "x"}


async def submit(provider: FakeProvider, rows: list[Any]) -> Any:
    f = await litellm.acreate_file(file=("in.jsonl", jsonl(rows)), purpose="batch", **kw(provider))
    return await litellm.acreate_batch(
        completion_window="24h",
        endpoint="/v1/chat/completions",
        input_file_id=f.id,
        metadata={"judge_local_id": "lb_1"},
        **kw(provider),
    )


async def until_done(provider: FakeProvider, batch_id: str) -> Any:
    for _ in range(20):
        batch = await litellm.aretrieve_batch(batch_id=batch_id, **kw(provider))
        if batch.status in ("completed", "expired", "failed", "cancelled"):
            return batch
    raise AssertionError("the batch never finished")


async def lines_of(provider: FakeProvider, file_id: str | None) -> dict[str, dict]:
    if not file_id:
        return {}
    content = await litellm.afile_content(file_id=file_id, **kw(provider))
    rows = [json.loads(r) for r in content.content.decode().splitlines()]
    return {r["custom_id"]: r for r in rows}


def test_a_batch_is_answered_line_by_line_like_direct_calls(provider: FakeProvider) -> None:
    async def go() -> None:
        batch = await submit(provider, [line(0), line(1)])
        assert batch.status == "validating" and batch.request_counts.total == 2
        running = await litellm.aretrieve_batch(batch_id=batch.id, **kw(provider))
        assert running.status == "in_progress" and running.output_file_id is None
        done = await until_done(provider, batch.id)
        assert done.status == "completed" and done.error_file_id is None
        assert (done.request_counts.completed, done.request_counts.failed) == (2, 0)
        out = await lines_of(provider, done.output_file_id)
        for n in (0, 1):
            resp = out[f"r{n}"]["response"]
            assert resp["status_code"] == 200 and resp["body"]["usage"]["prompt_tokens"] > 0
            content = resp["body"]["choices"][0]["message"]["content"]
            assert content == default_answer(line(n)["body"])  # what a direct call gets
        listed = await litellm.alist_batches(**kw(provider))
        assert [b.metadata["judge_local_id"] for b in listed.data] == ["lb_1"]

    asyncio.run(go())
    assert provider.calls == 0  # batch lines are not direct chat completions
    assert provider.batches.stats()["lines_answered"] == 2


def test_polls_and_delay_hold_a_batch_in_progress(provider: FakeProvider) -> None:
    provider.batches.configure(polls=3, delay_s=0.3)

    async def go() -> None:
        start = time.monotonic()  # the fake counts the delay from the batch's creation
        batch = await submit(provider, [line(0)])
        seen = []
        while True:
            got = await litellm.aretrieve_batch(batch_id=batch.id, **kw(provider))
            seen.append(got.status)
            if got.status == "completed":
                break
        assert seen[:3] == ["in_progress"] * 3
        assert time.monotonic() - start >= 0.3

    asyncio.run(go())


def test_injected_error_lines_and_expiry(provider: FakeProvider) -> None:
    provider.batches.fail_lines("picture 1", status=500, times=1)
    provider.batches.expire_next(keep=2)

    async def go() -> None:
        batch = await until_done(provider, (await submit(provider, [line(n) for n in range(4)])).id)
        assert batch.status == "expired"
        out = await lines_of(provider, batch.output_file_id)
        errors = await lines_of(provider, batch.error_file_id)
        assert set(out) == {"r0"}
        assert errors["r1"]["response"]["status_code"] == 500
        assert {errors[c]["error"]["code"] for c in ("r2", "r3")} == {"batch_expired"}
        # the fault was used up: the same request in a new batch is answered
        again = await until_done(provider, (await submit(provider, [line(1)])).id)
        assert set(await lines_of(provider, again.output_file_id)) == {"r1"}

    asyncio.run(go())
    assert provider.batches.stats()["lines_failed"] == 3


def test_malformed_lines_get_their_own_error(provider: FakeProvider) -> None:
    bad_url = {**line(1), "url": "/v1/embeddings"}
    bad_body = {"custom_id": "r2", "method": "POST", "url": "/v1/chat/completions", "body": {}}

    async def go() -> None:
        batch = await until_done(
            provider, (await submit(provider, [line(0), bad_url, bad_body])).id
        )
        errors = await lines_of(provider, batch.error_file_id)
        assert errors["r1"]["response"]["status_code"] == 400
        assert "messages" in errors["r2"]["response"]["body"]["error"]["message"]
        assert set(await lines_of(provider, batch.output_file_id)) == {"r0"}

    asyncio.run(go())


def test_bad_requests_and_admin_endpoints(provider: FakeProvider) -> None:
    base = provider.base_url.removesuffix("/v1")
    with httpx.Client(base_url=base) as http:
        assert http.get("/v1/batches/batch_nope").status_code == 404
        assert http.get("/v1/files/file-nope/content").status_code == 404
        made = http.post("/v1/batches", json={"input_file_id": "file-nope"})
        assert made.status_code == 400 and "input_file_id" in made.json()["error"]["message"]
        assert http.post("/v1/files", data={"purpose": "batch"}).status_code == 400
        up = http.post(
            "/v1/files", files={"file": ("a.jsonl", jsonl([line(0)]))}, data={"purpose": "batch"}
        )
        fid = up.json()["id"]
        assert http.get(f"/v1/files/{fid}").json()["bytes"] == len(jsonl([line(0)]))
        wrong = http.post(
            "/v1/batches",
            json={"input_file_id": fid, "endpoint": "/v1/x", "completion_window": "24h"},
        )
        assert wrong.status_code == 400
        cfg = http.post("/_admin/batches", json={"polls": 0, "expire_next": 0})
        assert cfg.json()["polls"] == 0
        assert http.post("/_admin/batches", json={"nope": 1}).status_code == 400
        made = http.post(
            "/v1/batches",
            json={
                "input_file_id": fid,
                "endpoint": "/v1/chat/completions",
                "completion_window": "24h",
            },
        ).json()
        assert http.get(f"/v1/batches/{made['id']}").json()["status"] == "expired"
        cancelled = http.post(f"/v1/batches/{made['id']}/cancel").json()
        assert cancelled["status"] == "expired"  # a finished batch stays as it ended
        assert http.get("/_admin/batches").json()["batches_created"] == 1
    provider.reset()
    assert provider.batches.stats() == {} and provider.batches.configure()["polls"] == 1


def test_cancel_stops_a_running_batch(provider: FakeProvider) -> None:
    async def go() -> None:
        batch = await submit(provider, [line(0)])
        base = provider.base_url
        async with httpx.AsyncClient() as http:
            got = (await http.post(f"{base}/batches/{batch.id}/cancel")).json()
        assert got["status"] == "cancelled"
        after = await litellm.aretrieve_batch(batch_id=batch.id, **kw(provider))
        assert after.status == "cancelled" and after.output_file_id is None

    asyncio.run(go())


@pytest.mark.parametrize("bad", [{"polls": "x"}, {"delay_s": "soon"}])
def test_configure_refuses_bad_values(provider: FakeProvider, bad: dict) -> None:
    with pytest.raises(ValueError):
        provider.batches.configure(**bad)
