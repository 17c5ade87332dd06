"""Fetch an https image safely (only when ``allow_remote_images`` is on).

https only; every address the host resolves to must be public (no loopback, private,
link-local — which covers cloud metadata — multicast or reserved ranges, also when written
as an IPv6 address that embeds an IPv4 one: IPv4-mapped ``::ffff:a.b.c.d``, IPv4-compatible
``::a.b.c.d``, NAT64 ``64:ff9b::/96`` and ``64:ff9b:1::/48``, 6to4 ``2002::/16`` and Teredo).
The host is resolved once per hop and the connection is pinned to the checked address (a
DNS-rebinding host cannot switch addresses between check and connect), while TLS still
verifies the certificate for the URL's host name (SNI and ``Host`` are the URL's). Redirects
are followed by hand and re-checked; size and time are capped; environment proxies are
ignored. A caller that trusts its source (a T2I backend the operator configured with
``allow_private_urls``) may pass ``allow_private=True``: then plain http and loopback/private
addresses are accepted too, with the same pinning and caps.

Example:
    >>> try:
    ...     fetch_image("http://example.com/a.png", field="images[0]")
    ... except InputError as e:
    ...     print(e.message)
    only https URLs are accepted
    >>> is_public(ipaddress.ip_address("64:ff9b::a9fe:a9fe"))     # NAT64 of 169.254.169.254
    False
"""

from __future__ import annotations

import ipaddress
import socket
import time
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpcore
import httpx

from judge.config import JudgeSettings
from judge.errors import InputError, too_big

MAX_REDIRECTS = 3
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_COMPAT = ipaddress.ip_network("::/96")


def embedded_ipv4(addr: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4, Teredo).

    Example:
        >>> str(embedded_ipv4(ipaddress.IPv6Address("2002:7f00:1::")))
        '127.0.0.1'
    """
    if addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    if addr.sixtofour is not None:
        return addr.sixtofour
    if addr.teredo is not None:
        return addr.teredo[1]
    if any(addr in net for net in _NAT64) or (addr in _COMPAT and int(addr) > 1):
        return ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF)
    return None


def is_public(addr: IPAddress) -> bool:
    """True for a global unicast address (judging an embedded IPv4 address by itself)."""
    if isinstance(addr, ipaddress.IPv6Address):
        inner = embedded_ipv4(addr)
        if inner is not None:
            return is_public(inner)
    return addr.is_global and not addr.is_multicast


def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (the one DNS look-up of a hop)."""
    found = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    return [str(info[4][0]) for info in found]


def check_url(url: str, field: str, allow_private: bool = False) -> str:
    """Raise unless ``url`` is https to a host whose every address is public (with
    ``allow_private``: http or https to any address); return the address to connect to."""
    try:
        parts = urlsplit(url)
        port = parts.port or (80 if parts.scheme == "http" else 443)
    except ValueError as exc:
        raise InputError(field, f"malformed URL ({exc})") from None
    if parts.scheme != "https" and not (allow_private and parts.scheme == "http"):
        raise InputError(field, "only https URLs are accepted")
    if not parts.hostname:
        raise InputError(field, "the URL has no host")
    try:
        addresses = resolve(parts.hostname, port)
    except (socket.gaierror, UnicodeError):
        raise InputError(field, f"cannot resolve host {parts.hostname!r}") from None
    if not addresses:
        raise InputError(field, f"cannot resolve host {parts.hostname!r}")
    for raw in addresses:
        try:
            addr = ipaddress.ip_address(raw.split("%")[0])
        except ValueError:
            raise InputError(field, f"host {parts.hostname!r} has an unusable address") from None
        if not is_public(addr) and not allow_private:
            raise InputError(field, f"host {parts.hostname!r} resolves to a non-public address")
    return addresses[0].split("%")[0]


class PinnedBackend(httpcore.NetworkBackend):
    """httpcore's network layer with every TCP connection sent to one fixed address; the
    URL's host still names the server for TLS (SNI, certificate check) and ``Host``."""

    def __init__(self, address: str, inner: httpcore.NetworkBackend | None = None):
        self.address = address
        self.inner = inner or httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        return self.inner.connect_tcp(self.address, port, timeout, local_address, socket_options)

    def connect_unix_socket(self, *args: Any, **kwargs: Any) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("unix sockets are not used for remote images")

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


def pinned_transport(address: str) -> httpx.HTTPTransport:
    """An httpx transport whose connections all go to ``address`` (certificates verified)."""
    transport = httpx.HTTPTransport(trust_env=False)
    transport._pool = httpcore.ConnectionPool(
        ssl_context=httpx.create_ssl_context(trust_env=False),
        network_backend=PinnedBackend(address),
    )
    return transport


def _left(deadline: float, limit: float, field: str) -> float:
    """Seconds left before ``deadline``; InputError once it has passed."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise InputError(
            field, f"the image did not download within {limit:g} s (remote_image_timeout_s)"
        )
    return left


def fetch_image(
    url: str, *, field: str, settings: JudgeSettings | None = None, allow_private: bool = False
) -> bytes:
    """Download at most ``image_max_bytes`` from ``url`` within ``remote_image_timeout_s``
    in total (redirects, connects and every read together: a server trickling bytes cannot
    hold a fetch longer)."""
    s = settings or JudgeSettings()
    limit = s.remote_image_timeout_s
    deadline = time.monotonic() + limit
    try:
        for _ in range(MAX_REDIRECTS + 1):
            address = check_url(url, field, allow_private)
            with (
                httpx.Client(
                    timeout=httpx.Timeout(_left(deadline, limit, field)),
                    follow_redirects=False,
                    trust_env=False,
                    transport=pinned_transport(address),
                ) as client,
                client.stream("GET", url) as resp,
            ):
                if resp.is_redirect:
                    url = urljoin(url, resp.headers.get("location", ""))
                    continue
                if resp.status_code != 200:
                    raise InputError(field, f"fetching the image gave HTTP {resp.status_code}")
                data = bytearray()
                for chunk in resp.iter_bytes():
                    data += chunk
                    if len(data) > s.image_max_bytes:
                        raise InputError(field, too_big(f"over {s.image_max_bytes} bytes",
                                                        s.image_max_bytes, "bytes"))  # fmt: skip
                    _left(deadline, limit, field)
                return bytes(data)
        raise InputError(field, f"more than {MAX_REDIRECTS} redirects")
    except httpx.HTTPError as exc:
        raise InputError(field, f"could not fetch the image ({type(exc).__name__})") from None
