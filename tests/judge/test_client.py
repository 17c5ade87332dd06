"""``judge.Client``/``AsyncClient`` against a real HTTP server on loopback: retries with
backoff on 429/503 (``Retry-After`` honoured), error bodies become ``ServiceError`` naming the
field, local images go inline, batches stream in order."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import judge

REPO = Path(__file__).resolve().parents[2]
RESULT = {"submission_id": "s1", "status": "scored"}


class Script:
    """What the server answers, in order, per path; and what it received."""

    def __init__(self) -> None:
        self.answers: dict[str, list[tuple[int, dict, dict]]] = {}
        self.bodies: list[dict] = []
        self.paths: list[str] = []


@pytest.fixture
def server() -> Iterator[tuple[str, Script]]:
    script = Script()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _answer(self) -> None:
            script.paths.append(self.path)
            length = int(self.headers.get("content-length") or 0)
            if length:
                script.bodies.append(json.loads(self.rfile.read(length)))
            key = self.path.split("?")[0]
            queue = script.answers.get(key) or [(404, {}, {"error": {"message": "no"}})]
            status, headers, body = queue.pop(0) if len(queue) > 1 else queue[0]
            raw = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("content-length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        do_GET = do_POST = do_DELETE = _answer

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", script
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_retries_429_and_503_then_returns_the_result(server) -> None:
    url, script = server
    script.answers["/v1/score"] = [
        (429, {"retry-after": "0"}, {"error": {"message": "slow down"}}),
        (503, {}, {"error": {"message": "busy"}}),
        (200, {}, RESULT),
    ]
    image = REPO / "examples" / "compare" / "a.png"
    with judge.Client(url, "k1", backoff_s=0.01) as client:
        result = client.score({"task": {}, "prompt": "p", "images": [str(image)]},
                              options={"skills": ["@avt"]})
    assert result.status == "scored" and result.to_row()["submission_id"] == "s1"
    assert script.paths.count("/v1/score") == 3
    sent = script.bodies[-1]
    assert sent["options"] == {"skills": ["@avt"]}
    assert sent["submission"]["images"][0].startswith("data:image/png;base64,")


def test_an_error_answer_names_the_field_and_is_not_retried(server) -> None:
    url, script = server
    script.answers["/v1/score"] = [
        (422, {}, {"error": {"code": "invalid", "field": "task.category", "message": "bad"}})
    ]
    with judge.Client(url, backoff_s=0.01) as client, pytest.raises(judge.ServiceError) as err:
        client.score({"task": {}, "prompt": "p", "images": []})
    assert err.value.status == 422 and err.value.field == "task.category"
    assert script.paths.count("/v1/score") == 1


def test_retries_are_bounded(server) -> None:
    url, script = server
    script.answers["/v1/score"] = [(503, {}, {"error": {"message": "busy"}})]
    with judge.Client(url, retries=2, backoff_s=0.01) as client, pytest.raises(
        judge.ServiceError
    ) as err:
        client.score({"task": {}, "prompt": "p", "images": []})
    assert err.value.status == 503 and script.paths.count("/v1/score") == 3


def test_async_batch_submit_wait_and_stream(server) -> None:
    url, script = server
    script.answers["/v1/batches"] = [(202, {}, {"id": "b1", "total": 2, "status": "queued"})]
    status = {"id": "b1", "total": 2, "failed": 0, "progress": 1.0}
    script.answers["/v1/batches/b1"] = [
        (200, {}, {**status, "status": "running", "done": 1, "progress": 0.5}),
        (200, {}, {**status, "status": "done", "done": 2}),
    ]
    lines = b"".join(json.dumps({"index": i, "result": RESULT}).encode() + b"\n" for i in (0, 1))
    script.answers["/v1/batches/b1/results"] = [(200, {"content-type": "application/x-ndjson"},
                                                 lines)]

    async def main() -> list[int]:
        async with judge.AsyncClient(url, backoff_s=0.01) as client:
            batch = await client.submit([{"prompt": "a"}, {"prompt": "b"}])
            info = await client.wait(batch, poll_s=0.01, progress=False)
            assert info["done"] == 2
            return [line["index"] async for line in client.results(batch)]

    assert asyncio.run(main()) == [0, 1]
    assert script.bodies[0] == {"items": [{"prompt": "a"}, {"prompt": "b"}], "options": {}}
