"""A route's request template: what litellm sends for a call, minus the call's own content.

:func:`calibrate` runs litellm's request path once for a probe conversation (a system
prompt, a user turn with text and an image, an assistant turn and a user re-ask: every shape
the judge sends) with a local HTTP client (:mod:`judge.llm.direct.replay`) and records the
request. When litellm sent the probe messages and response format as they were, the rest of
the request (URL, headers, model name and parameters, in litellm's order) is the template;
:meth:`RequestTemplate.render` fills in a call's messages and response format and gives the
same bytes litellm's ``json.dumps`` would. Images (data URLs, already JSON-safe) are spliced
in rather than re-encoded on every call.

Example:
    >>> t = RequestTemplate.from_body("http://h/v1/chat/completions", {},
    ...     {"model": "m", "messages": PROBE, "temperature": 0.0, "response_format": FORMAT})
    >>> msgs = [{"role": "user", "content": "hi"}]
    >>> fmt = {"type": "json_object"}
    >>> t.render(msgs, fmt) == json.dumps(
    ...     {"model": "m", "messages": msgs, "temperature": 0.0, "response_format": fmt}).encode()
    True
"""

from __future__ import annotations

import itertools
import json
import re
import secrets
from dataclasses import dataclass
from typing import Any

import httpx

from judge.llm.warm_stub import CANNED_COMPLETION
from judge.llm.warmup import PIXEL
from skills.types import DataURL

#: the probe conversation: every message shape the judge sends
PROBE: list[dict[str, Any]] = [
    {"role": "system", "content": "probe"},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "probe"},
            {"type": "image_url", "image_url": {"url": PIXEL}},
        ],
    },
    {"role": "assistant", "content": "probe"},
    {"role": "user", "content": "probe"},
]
#: the probe's response format
FORMAT: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {
        "name": "Probe",
        "schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
    },
}
#: what the local client answers the probe with (the warm-up's canned completion)
CANNED: dict[str, Any] = CANNED_COMPLETION
#: images shorter than this are encoded as usual (splicing pays off for large ones)
_SPLICE_MIN = 4096
_ROLES = frozenset({"system", "user", "assistant"})


_NONCE = secrets.token_hex(8)
_COUNT = itertools.count()
#: characters JSON would escape
_ESCAPED = re.compile(r'["\\\x00-\x1f\x7f]')


def _marker() -> str:
    """A string no conversation contains (checked where it is used)."""
    return f"@@judge-direct-{_NONCE}-{next(_COUNT)}@@"


def plain(messages: list[dict]) -> bool:
    """True when every message has one of the probe's shapes (so litellm would send it as
    it is): a system, user or assistant role, and text or a list of text and image parts."""
    for message in messages:
        if not isinstance(message, dict) or message.keys() - {"role", "content"}:
            return False
        if message.get("role") not in _ROLES:
            return False
        content = message.get("content")
        if isinstance(content, str):
            continue
        if not isinstance(content, list):
            return False
        for part in content:
            if not isinstance(part, dict):
                return False
            kind = part.get("type")
            if kind == "text":
                if part.keys() != {"type", "text"} or not isinstance(part["text"], str):
                    return False
            elif kind == "image_url":
                url = part.get("image_url")
                if part.keys() != {"type", "image_url"} or not isinstance(url, dict):
                    return False
                if url.keys() != {"url"} or not isinstance(url["url"], str):
                    return False
            else:
                return False
    return True


def _json_safe(text: str) -> bool:
    """True when ``json.dumps(text)`` is ``text`` in quotes: a :class:`~skills.types.DataURL`
    (the judge built it), or ASCII without quotes, backslashes or control characters."""
    return isinstance(text, DataURL) or (text.isascii() and _ESCAPED.search(text) is None)


def encode_messages(messages: list[dict]) -> str:
    """``json.dumps(messages)``, with large JSON-safe image URLs spliced in unchanged."""
    return "".join(message_pieces(messages))


def message_pieces(messages: list[dict]) -> list[str]:
    """The pieces whose concatenation is ``json.dumps(messages)``: the conversation encoded
    with each large JSON-safe image URL swapped for a marker, cut at the markers, the URLs
    themselves between the cuts (so a call's body copies each image once, when joined)."""
    urls: dict[str, str] = {}
    swapped: list[dict] = []
    for message in messages:
        content = message.get("content")
        if not isinstance(content, list):
            swapped.append(message)
            continue
        parts = []
        for part in content:
            url = part.get("image_url", {}).get("url") if part.get("type") == "image_url" else None
            if isinstance(url, str) and len(url) >= _SPLICE_MIN and _json_safe(url):
                key = _marker()
                urls[key] = url
                part = {**part, "image_url": {"url": key}}  # the part's own key order
            parts.append(part)
        swapped.append({**message, "content": parts})
    text = json.dumps(swapped)
    pieces: list[str] = []
    for key, url in urls.items():
        before, found, text = text.partition(f'"{key}"')
        if not found or key in before or key in text:  # a marker in the conversation itself
            return [json.dumps(messages)]
        pieces += (before, '"', url, '"')
    pieces.append(text)
    return pieces


@dataclass(frozen=True)
class RequestTemplate:
    """The URL, headers and body frame of a route's requests."""

    url: str
    headers: dict[str, str]
    before_messages: str
    before_format: str
    after_format: str

    @classmethod
    def from_body(cls, url: str, headers: dict[str, str], body: dict[str, Any]) -> RequestTemplate:
        """The template of a recorded probe request (its messages and format swapped out)."""
        m, f = _marker(), _marker()
        frame = json.dumps({k: m if k == "messages" else f if k == "response_format" else v
                            for k, v in body.items()})  # fmt: skip
        head, _, rest = frame.partition(f'"{m}"')
        middle, _, tail = rest.partition(f'"{f}"')
        return cls(url, dict(headers), head, middle, tail)

    def render(self, messages: list[dict], fmt: dict) -> bytes:
        """The request body for a call, byte for byte as litellm would send it."""
        return "".join(
            (self.before_messages, *message_pieces(messages), self.before_format,
             json.dumps(fmt), self.after_format)
        ).encode()  # fmt: skip


def template_of(request: httpx.Request) -> RequestTemplate | None:
    """The template of litellm's probe request, or None when litellm changed the probe's
    messages or response format (the route then stays on litellm)."""
    try:
        body = json.loads(request.content)
    except ValueError:
        return None
    if not isinstance(body, dict) or body.get("stream"):
        return None
    if body.get("messages") != PROBE or body.get("response_format") != FORMAT:
        return None
    headers = {k: v for k, v in request.headers.items() if k.lower() not in _TRANSPORT_HEADERS}
    return RequestTemplate.from_body(str(request.url), headers, body)


#: headers of the connection, not of the request: the direct route's client sets its own
#: (every other recorded header, the user agent included, goes out as recorded)
_TRANSPORT_HEADERS = frozenset({"host", "content-length", "connection", "accept-encoding"})
