"""Which provider errors are worth retrying, how long to wait, and what to tell the user.

Transient errors (429, 5xx, timeouts, dropped connections) are retried with backoff. Errors
no retry can fix fail at once: the provider cannot be reached at all (connection refused,
unknown host), the key is refused (401/403), or the model or endpoint does not exist (404).
litellm reports an unreachable server as a 500, so the cause is read from the exception
chain. Each cause is said once per process on the ``judge.llm`` logger (stderr in the CLI).

Example:
    >>> import litellm
    >>> is_transient(litellm.RateLimitError("slow down", "openai", "m"))
    True
    >>> fatal_cause(litellm.AuthenticationError("bad key", "openai", "m"))
    'authentication failed (HTTP 401)'
    >>> 0 <= backoff_delay(3, base=0.5, cap=20) <= 4.0
    True
"""

from __future__ import annotations

import asyncio
import errno
import logging
import random
import socket
import threading
from collections.abc import Iterator
from functools import lru_cache
from urllib.parse import urlsplit

from judge.llm.litellm_settings import load

log = logging.getLogger("judge.llm")


@lru_cache(maxsize=1)
def transient_errors() -> tuple[type[BaseException], ...]:
    """The error classes worth retrying (litellm's, loaded on first need)."""
    litellm = load()
    return (
        litellm.RateLimitError,
        litellm.InternalServerError,
        litellm.ServiceUnavailableError,
        litellm.BadGatewayError,
        litellm.Timeout,
        litellm.APIConnectionError,
        asyncio.TimeoutError,
    )


#: what to check for each cause no retry can fix
ADVICE = {
    "connection refused": "is the server running, and is JUDGE_API_BASE / --api-base right?",
    "unknown host": "check the host name in JUDGE_API_BASE / --api-base",
    "authentication failed (HTTP 401)": "check JUDGE_API_KEY / --api-key",
    "permission denied (HTTP 403)": "check that the key may use this model",
    "model or endpoint not found (HTTP 404)": (
        "check the model name (JUDGE_MODEL / --model) and the endpoint (JUDGE_API_BASE)"
    ),
    "unknown provider or model": "use a litellm model string such as 'openai/gpt-4o'",
}
_UNREACHABLE_TEXT = {
    "connection refused": ("connection refused", "connect call failed"),
    "unknown host": ("name or service not known", "nodename nor servname", "getaddrinfo failed"),
}


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and its causes/contexts, each once."""
    seen: set[int] = set()
    todo: list[BaseException] = [exc]
    while todo and len(seen) < 32:
        cur = todo.pop()
        if id(cur) in seen:
            continue
        seen.add(id(cur))
        yield cur
        todo += [e for e in (cur.__cause__, cur.__context__) if e is not None]


def _unreachable(exc: BaseException) -> str | None:
    for e in _chain(exc):
        if isinstance(e, ConnectionRefusedError) or (
            isinstance(e, OSError) and e.errno == errno.ECONNREFUSED
        ):
            return "connection refused"
        if isinstance(e, socket.gaierror):
            return "unknown host"
    text = " ".join(str(e).lower() for e in _chain(exc))
    for cause, needles in _UNREACHABLE_TEXT.items():
        if any(n in text for n in needles):
            return cause
    return None


def fatal_cause(exc: BaseException) -> str | None:
    """A short cause when no retry can fix ``exc`` (see :data:`ADVICE`), else None."""
    cause = _unreachable(exc)
    if cause:
        return cause
    status = getattr(exc, "status_code", None)
    litellm = load()
    if isinstance(exc, litellm.AuthenticationError) or status == 401:
        return "authentication failed (HTTP 401)"
    if isinstance(exc, litellm.PermissionDeniedError) or status == 403:
        return "permission denied (HTTP 403)"
    if isinstance(exc, litellm.NotFoundError) or status == 404:
        return "model or endpoint not found (HTTP 404)"
    if isinstance(exc, litellm.BadRequestError) and "provider not provided" in str(exc).lower():
        return "unknown provider or model"
    return None


def is_transient(exc: BaseException) -> bool:
    """True for 429, 5xx, timeouts and dropped connections, unless no retry can fix it."""
    if fatal_cause(exc) is not None:
        return False
    if isinstance(exc, transient_errors()):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status == 429 or status >= 500)


def transient_cause(exc: BaseException, timeout_s: float | None = None) -> str:
    """A short name for a retried error: rate limited, server error, timeout, connection."""
    status = getattr(exc, "status_code", None)
    litellm = load()
    if isinstance(exc, litellm.RateLimitError) or status == 429:
        return "rate limited (HTTP 429)"
    if isinstance(exc, litellm.Timeout | asyncio.TimeoutError):
        return f"no answer within the {timeout_s:g} s timeout" if timeout_s else "timed out"
    if isinstance(exc, litellm.APIConnectionError):
        return "connection error"
    if isinstance(status, int) and status >= 500:
        return f"server error (HTTP {status})"
    return type(exc).__name__


def throttle_cause(exc: BaseException) -> str | None:
    """``"429"``, ``"overloaded"`` (503/529) or ``"timeout"`` when ``exc`` says the provider
    is taking too much; None for other errors (they do not move the concurrency limit)."""
    status = getattr(exc, "status_code", None)
    litellm = load()
    if isinstance(exc, litellm.RateLimitError) or status == 429:
        return "429"
    if isinstance(exc, litellm.Timeout | asyncio.TimeoutError):
        return "timeout"
    if isinstance(exc, litellm.ServiceUnavailableError) or status in (503, 529):
        return "overloaded"
    return None


def route_label(model: str, api_base: str | None) -> str:
    """The name of a provider route: the model, and the endpoint's host when one is set
    (never its credentials or path)."""
    if not api_base:
        return model
    host = urlsplit(api_base).netloc.rpartition("@")[2]
    return f"{model}@{host}" if host else model


def backoff_delay(attempt: int, *, base: float, cap: float) -> float:
    """Exponential backoff with jitter: between half and all of ``base * 2**attempt``."""
    ceiling = min(cap, base * (2**attempt))
    return ceiling * (0.5 + random.random() / 2)


def describe(exc: BaseException) -> str:
    """A short, single-line description of a provider error."""
    name = type(exc).__name__
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{name}: {text[:200]}" if text else name


#: what to check when no API base was set (the provider's own address was used)
ADVICE_NO_BASE = {
    "connection refused": "is this machine online, or does it need a proxy (HTTPS_PROXY)?",
    "unknown host": "the provider's address did not resolve: is this machine online (DNS)?",
}


def fatal_message(cause: str, model: str, api_base: str | None) -> str:
    """What failed, that it is not retried, and what to check (a connection problem with no
    ``JUDGE_API_BASE`` set is about the network, not about a base nobody set).

    Example:
        >>> print(fatal_message("unknown host", "openai/gpt-4o", None))  # doctest: +ELLIPSIS
        judge model openai/gpt-4o: unknown host; ... is this machine online (DNS)?
        >>> print(fatal_message("unknown host", "openai/x", "http://h:80"))  # doctest: +ELLIPSIS
        judge model openai/x at http://h:80: unknown host; ...: check the host name ...
    """
    where = f" at {api_base}" if api_base else ""
    advice = (None if api_base else ADVICE_NO_BASE.get(cause)) or ADVICE.get(
        cause, "check the provider settings"
    )
    return f"judge model {model}{where}: {cause}; not retried (retrying cannot fix it): {advice}"


_SAID: set[tuple[str, ...]] = set()
_SAID_LOCK = threading.Lock()


def say_once(key: tuple[str, ...], message: str) -> bool:
    """Log ``message`` as a warning the first time ``key`` is seen in this process."""
    with _SAID_LOCK:
        if key in _SAID:
            return False
        _SAID.add(key)
    log.warning("%s", message)
    return True
