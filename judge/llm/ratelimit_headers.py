"""The provider's rate-limit headers, read from a litellm response or error.

litellm hands the OpenAI-style headers over under their own names
(``x-ratelimit-limit-requests``, ``-remaining-requests``, ``-reset-requests`` and the same for
tokens; it maps Anthropic's ``anthropic-ratelimit-*`` onto them) and every raw header as
``llm_provider-<name>``; a 429 also carries ``retry-after`` (``retry-after-ms`` is preferred
when both are there). Reset times come as OpenAI durations (``"1s"``, ``"6m0s"``, ``"250ms"``)
or seconds.

Example:
    >>> h = RateHeaders.parse({"x-ratelimit-limit-requests": "60",
    ...                        "x-ratelimit-remaining-requests": "0",
    ...                        "x-ratelimit-reset-requests": "1.5s"})
    >>> h.exhausted(), h.wait_s()
    (True, 0.025)
    >>> parse_duration("6m0s"), parse_duration("250ms")
    (360.0, 0.25)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")


def parse_duration(text: str) -> float | None:
    """Seconds in ``"1h2m3.5s"``, ``"250ms"`` or ``"2"``; None when unreadable."""
    text = text.strip().lower()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    parts = _PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    return sum(float(n) * _UNIT_S[u] for n, u in parts)


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _get(headers: Mapping[str, Any], name: str) -> Any:
    return headers.get(name, headers.get(f"llm_provider-{name}"))


@dataclass(frozen=True)
class RateHeaders:
    """What is left of the provider's request and token windows, and when they reset."""

    limit_requests: float | None = None
    left_requests: float | None = None
    reset_requests_s: float | None = None
    limit_tokens: float | None = None
    left_tokens: float | None = None
    reset_tokens_s: float | None = None
    retry_after_s: float | None = None

    @classmethod
    def parse(cls, headers: Mapping[str, Any]) -> RateHeaders:
        """Read the headers (any case of names is accepted)."""
        low = {str(k).lower(): v for k, v in headers.items()}
        retry = _get(low, "retry-after-ms")
        retry_s = (_number(retry) or 0.0) / 1000 if retry is not None else None
        if retry_s is None and _get(low, "retry-after") is not None:
            retry_s = parse_duration(str(_get(low, "retry-after")))
        reset = {
            kind: parse_duration(str(v)) if v is not None else None
            for kind in ("requests", "tokens")
            for v in [_get(low, f"x-ratelimit-reset-{kind}")]
        }
        return cls(
            limit_requests=_number(_get(low, "x-ratelimit-limit-requests")),
            left_requests=_number(_get(low, "x-ratelimit-remaining-requests")),
            reset_requests_s=reset["requests"],
            limit_tokens=_number(_get(low, "x-ratelimit-limit-tokens")),
            left_tokens=_number(_get(low, "x-ratelimit-remaining-tokens")),
            reset_tokens_s=reset["tokens"],
            retry_after_s=retry_s,
        )

    def empty(self) -> bool:
        """True when no rate-limit header was present."""
        return all(v is None for v in vars(self).values())

    def exhausted(self) -> bool:
        """No request or no token left in the current window."""
        return (self.left_requests is not None and self.left_requests <= 0) or (
            self.left_tokens is not None and self.left_tokens <= 0
        )

    def left_share(self) -> float | None:
        """The smaller share of the request and token windows left (0..1), if known."""
        shares = [
            left / limit
            for left, limit in (
                (self.left_requests, self.limit_requests),
                (self.left_tokens, self.limit_tokens),
            )
            if left is not None and limit
        ]
        return min(shares) if shares else None

    def wait_s(self) -> float | None:
        """Seconds until the provider takes another call, if the headers tell: ``retry-after``
        first, else, for an exhausted window, its reset time divided by the calls it refills
        (OpenAI's reset time is until the window is full again, not until the next call)."""
        if self.retry_after_s is not None:
            return self.retry_after_s
        waits = [
            reset / max(1.0, (limit or 1.0) - left)
            for left, limit, reset in (
                (self.left_requests, self.limit_requests, self.reset_requests_s),
                (self.left_tokens, self.limit_tokens, self.reset_tokens_s),
            )
            if reset is not None and left is not None and left <= 0
        ]
        return max(waits) if waits else None


def headers_of(obj: Any) -> RateHeaders | None:
    """The rate-limit headers of a litellm response or provider error, if it carries any."""
    found: Mapping[str, Any] | None = None
    hidden = getattr(obj, "_hidden_params", None)
    if isinstance(hidden, dict) and isinstance(hidden.get("additional_headers"), Mapping):
        found = hidden["additional_headers"]
    if found is None:
        found = getattr(obj, "litellm_response_headers", None)
    if found is None:
        response = getattr(obj, "response", None)
        found = getattr(response, "headers", None)
    if found is None or not hasattr(found, "items"):
        return None
    return rate_headers(found)


def rate_headers(headers: Mapping[str, Any]) -> RateHeaders | None:
    """The rate-limit headers among raw response headers; None when there are none."""
    parsed = RateHeaders.parse(headers)
    return None if parsed.empty() else parsed
