"""Remote image fetching: IPv6 forms that embed a non-public IPv4 address are refused, and
the connection goes to the address that was checked (one DNS look-up per hop, no rebinding),
with the URL's host kept for ``Host``/SNI. No test touches the network: names are resolved
by a replaced resolver and connections are caught by a socket spy or go to loopback."""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from judge.config import JudgeSettings
from judge.errors import InputError
from judge.io import remote

REFUSED = [
    "::ffff:127.0.0.1",
    "::ffff:169.254.169.254",
    "::127.0.0.1",
    "::10.0.0.1",
    "64:ff9b::10.0.0.1",
    "64:ff9b::169.254.169.254",
    "64:ff9b:1::a00:1",
    "2002:a00:1::1",
    "2002:7f00:1::",
    "2002:a9fe:a9fe::1",
    "2001:0:4136:e378:8000:63bf:f5ff:fffe",  # Teredo, client 10.0.0.1
    "::1",
    "fe80::1",
    "fd00::1",
]
ACCEPTED = ["64:ff9b::8.8.8.8", "2002:808:808::1", "2606:4700:4700::1111", "8.8.4.4"]


def resolving_to(monkeypatch: pytest.MonkeyPatch, *answers: list[str]) -> list[str]:
    """Replace the resolver: the n-th look-up gets ``answers[n]`` (the last one repeats)."""
    asked: list[str] = []

    def fake(host: str, port: int) -> list[str]:
        asked.append(host)
        return answers[min(len(asked), len(answers)) - 1]

    monkeypatch.setattr(remote, "resolve", fake)
    return asked


@pytest.mark.parametrize("address", REFUSED)
def test_ipv6_forms_of_private_addresses_are_refused(
    monkeypatch: pytest.MonkeyPatch, address: str
) -> None:
    resolving_to(monkeypatch, [address])
    with pytest.raises(InputError, match="non-public"):
        remote.check_url("https://images.example/a.png", "images[0]")


@pytest.mark.parametrize("address", ACCEPTED)
def test_public_addresses_pass_and_are_returned(
    monkeypatch: pytest.MonkeyPatch, address: str
) -> None:
    resolving_to(monkeypatch, [address])
    assert remote.check_url("https://images.example/a.png", "images[0]") == address
    assert remote.is_public(ipaddress.ip_address(address))


def test_one_private_address_among_public_ones_is_enough_to_refuse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    resolving_to(monkeypatch, ["8.8.8.8", "64:ff9b::7f00:1"])
    with pytest.raises(InputError, match="non-public"):
        remote.check_url("https://images.example/a.png", "images[0]")


def test_the_fetch_connects_to_the_checked_address_without_resolving_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A rebinding host answers a public address first and loopback after: the fetch must
    connect to the first answer and never ask DNS again."""
    asked = resolving_to(monkeypatch, ["93.184.215.14"], ["127.0.0.1"])
    connects: list[Any] = []
    lookups: list[str] = []
    real_getaddrinfo = socket.getaddrinfo

    def connect(sock: socket.socket, address: Any) -> None:
        connects.append(address)
        raise ConnectionRefusedError("caught by the test before leaving the machine")

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        lookups.append(str(host))
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    settings = JudgeSettings().merged(allow_remote_images=True, remote_image_timeout_s=5)
    with pytest.raises(InputError, match="could not fetch"):
        remote.fetch_image("https://rebind.example/a.png", field="images[0]", settings=settings)
    assert asked == ["rebind.example"]
    assert [a[:2] for a in connects] == [("93.184.215.14", 443)]
    assert "rebind.example" not in lookups


class _Echo(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = self.headers.get("host", "").encode()
        self.send_response(200)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def http_server(handler: type[BaseHTTPRequestHandler]) -> Iterator[int]:
    """A threaded HTTP server on a free loopback port (its port) until the block ends."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()


@pytest.fixture
def echo_server() -> Iterator[int]:
    with http_server(_Echo) as port:
        yield port


def test_the_pinned_transport_keeps_the_urls_host(echo_server: int) -> None:
    """The name in the URL does not resolve anywhere; the pinned transport reaches the
    loopback server anyway, and the server sees the URL's host in ``Host``."""
    url = f"http://never-resolved.invalid:{echo_server}/x"
    with httpx.Client(transport=remote.pinned_transport("127.0.0.1"), trust_env=False) as c:
        r = c.get(url)
    assert r.status_code == 200
    assert r.text == f"never-resolved.invalid:{echo_server}"
