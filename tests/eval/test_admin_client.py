"""``eval.kit.admin.AdminClient`` against a real HTTP server on loopback: it retries what
``judge.Client`` retries, sends the admin key it is given and no other, and its refusals read
as the admin commands print them."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from eval.kit.admin import AdminClient, admin_key, refusal
from judge.transport import ServiceError


@pytest.fixture
def server() -> Iterator[tuple[str, list[tuple[int, bytes]], list[dict]]]:
    """The server answers from ``script`` in order (the last answer repeats) and records
    each request's path and Authorization header in ``seen``."""
    script: list[tuple[int, bytes]] = []
    seen: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            seen.append({"path": self.path, "auth": self.headers.get("authorization"),
                         "body": json.loads(body) if body else None})  # fmt: skip
            status, raw = script.pop(0) if len(script) > 1 else script[0]
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        do_GET = do_POST = _answer

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", script, seen
    finally:
        httpd.shutdown()
        httpd.server_close()


def error(message: str, field: str | None = None) -> bytes:
    return json.dumps({"error": {"code": "x", "message": message, "field": field}}).encode()


def test_a_busy_service_is_retried_then_answers(server) -> None:
    url, script, seen = server
    script += [(503, error("busy")), (200, b'{"id": "c1", "kind": "rating"}')]
    with AdminClient(url, "s3cret") as admin:
        admin.http.backoff_s = 0.01
        assert admin.campaign("c1") == {"id": "c1", "kind": "rating"}
    assert [s["path"] for s in seen] == ["/v1/campaigns/c1", "/v1/campaigns/c1"]
    assert {s["auth"] for s in seen} == {"Bearer s3cret"}


def test_the_service_key_is_never_sent_as_the_admin_key(
    server, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, script, seen = server
    monkeypatch.setenv("JUDGE_SERVICE_KEY", "reader")
    monkeypatch.delenv("JUDGE_ADMIN_KEY", raising=False)
    script.append((200, b'{"version": 2, "count": 3}'))
    with AdminClient(url, admin_key(None)) as admin:
        assert admin.add_exemplars("m", {"exemplars": []}) == {"version": 2, "count": 3}
    assert seen == [{"path": "/v1/memories/m/exemplars", "auth": None,
                     "body": {"exemplars": []}}]  # fmt: skip


def test_refusals_say_what_to_do(server) -> None:
    url, script, _ = server
    script.append((403, error("not an admin key")))
    with AdminClient(url, "wrong") as admin, pytest.raises(ServiceError) as err:
        admin.study_prompts("pilot")
    assert refusal(err.value, url) == (
        "HTTP 403: not an admin key (set the admin key with --admin-key-env)", 2)
    unprocessable = ServiceError(422, "bad", field="tasks[0]")
    assert refusal(unprocessable, url) == ("HTTP 422: tasks[0]: bad", 2)
    assert refusal(ServiceError(500, "boom"), url)[1] == 1



def test_a_dead_port_is_said_once() -> None:
    """Issue 38: the message was wrapped twice ("cannot reach URL (could not connect to URL
    (...); is the service running ...); is `judge serve` running?")."""
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
    with AdminClient(url, retries=0) as admin, pytest.raises(ServiceError) as err:
        admin.study_prompts("pilot")
    text, code = refusal(err.value, url + "/")
    assert code == 1 and text.startswith(f"could not connect to {url} (")
    assert text.count(url) == 1 and "cannot reach" not in text
    assert text.endswith("is the service running there (judge serve), and is the address right?")


def test_keys_and_addresses_are_checked_before_any_call(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    with pytest.raises(ValueError, match="NOT_SET_ANYWHERE is not set"):
        admin_key("NOT_SET_ANYWHERE")
    monkeypatch.setenv("JUDGE_ADMIN_KEY", "k")
    assert admin_key(None) == "k"
    with pytest.raises(ValueError, match="expected http://HOST:PORT"):
        AdminClient("ftp://x")
