"""Fetch an https image safely (only when ``allow_remote_images`` is on).

https only; every address the host resolves to must be public (no loopback, private,
link-local — which covers cloud metadata — multicast or reserved ranges); redirects are
followed by hand and re-checked; size and time are capped.

Known gap: the address is checked before connecting, and the HTTP client resolves again,
so a DNS-rebinding host could still switch addresses in between. The service issue pins
the connection to the checked address.

Example:
    >>> try:
    ...     fetch_image("http://example.com/a.png", field="images[0]")
    ... except InputError as e:
    ...     print(e.message)
    only https URLs are accepted
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urljoin, urlsplit

import httpx

from judge.config import JudgeSettings
from judge.errors import InputError

MAX_REDIRECTS = 3


def check_url(url: str, field: str) -> None:
    """Raise unless ``url`` is https to a host whose every address is public."""
    try:
        parts = urlsplit(url)
        port = parts.port or 443
    except ValueError as exc:
        raise InputError(field, f"malformed URL ({exc})") from None
    if parts.scheme != "https":
        raise InputError(field, "only https URLs are accepted")
    if not parts.hostname:
        raise InputError(field, "the URL has no host")
    try:
        infos = socket.getaddrinfo(parts.hostname, port, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError):
        raise InputError(field, f"cannot resolve host {parts.hostname!r}") from None
    for info in infos:
        addr = ipaddress.ip_address(info[4][0])
        if not addr.is_global or addr.is_multicast:
            raise InputError(field, f"host {parts.hostname!r} resolves to a non-public address")


def fetch_image(url: str, *, field: str, settings: JudgeSettings | None = None) -> bytes:
    """Download at most ``image_max_bytes`` from ``url`` within the time limit."""
    s = settings or JudgeSettings()
    timeout = httpx.Timeout(s.remote_image_timeout_s)
    try:
        with httpx.Client(timeout=timeout, follow_redirects=False) as client:
            for _ in range(MAX_REDIRECTS + 1):
                check_url(url, field)
                with client.stream("GET", url) as resp:
                    if resp.is_redirect:
                        url = urljoin(url, resp.headers.get("location", ""))
                        continue
                    if resp.status_code != 200:
                        raise InputError(field, f"fetching the image gave HTTP {resp.status_code}")
                    data = bytearray()
                    for chunk in resp.iter_bytes():
                        data += chunk
                        if len(data) > s.image_max_bytes:
                            raise InputError(field, f"image is over {s.image_max_bytes} bytes")
                    return bytes(data)
            raise InputError(field, f"more than {MAX_REDIRECTS} redirects")
    except httpx.HTTPError as exc:
        raise InputError(field, f"could not fetch the image ({type(exc).__name__})") from None
