"""Which provider errors are worth retrying, and how long to wait.

Example:
    >>> import litellm
    >>> is_transient(litellm.RateLimitError("slow down", "openai", "m"))
    True
    >>> 0 <= backoff_delay(3, base=0.5, cap=20) <= 4.0
    True
"""

from __future__ import annotations

import asyncio
import random

import litellm

TRANSIENT = (
    litellm.RateLimitError,
    litellm.InternalServerError,
    litellm.ServiceUnavailableError,
    litellm.BadGatewayError,
    litellm.Timeout,
    litellm.APIConnectionError,
    asyncio.TimeoutError,
)


def is_transient(exc: BaseException) -> bool:
    """True for 429, 5xx, timeouts and dropped connections."""
    if isinstance(exc, TRANSIENT):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status == 429 or status >= 500)


def backoff_delay(attempt: int, *, base: float, cap: float) -> float:
    """Exponential backoff with jitter: between half and all of ``base * 2**attempt``."""
    ceiling = min(cap, base * (2**attempt))
    return ceiling * (0.5 + random.random() / 2)


def describe(exc: BaseException) -> str:
    """A short, single-line description of a provider error."""
    name = type(exc).__name__
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{name}: {text[:200]}" if text else name
