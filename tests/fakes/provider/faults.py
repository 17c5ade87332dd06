"""Fault injection for the fake provider: which call fails, and how.

Two sources of faults, consulted in this order for every chat-completions call:

1. a queue filled by :meth:`FaultInjector.fail_next` — the next calls fail in the given order;
2. a random rate set by :meth:`FaultInjector.set_rate` — each call fails independently with
   probability ``rate``, the kind drawn uniformly from ``kinds``; deterministic given ``seed``
   and the order in which calls arrive.

Fault kinds (:data:`FAULT_KINDS`):

- ``"429"``: HTTP 429, ``Retry-After: 0``, error JSON in the provider's shape (OpenAI's for
  the OpenAI-compatible fake, ``rate_limit_error`` for Anthropic, ``RESOURCE_EXHAUSTED`` for
  Gemini, ``{"error": ...}`` for Ollama).
- ``"500"`` / ``"503"``: HTTP 500 / 503 with the provider's error JSON.
- ``"529"``: HTTP 529, Anthropic's "overloaded" status (other fakes answer it the same way).
- ``"timeout"``: the server sleeps ``hang_s`` before answering, so the client's timeout fires.
- ``"truncated"``: HTTP 200, the content is the normal answer cut in half (malformed JSON);
  ``finish_reason`` is ``"length"``, as when a real model runs out of tokens.
- ``"garbage"``: HTTP 200, the content is prose, not JSON (``finish_reason`` ``"stop"``).

Faults no retry can fix (:data:`FATAL_FAULT_KINDS`) are injected only when named (``fail_next``
or an explicit ``kinds``), never in the default random mix:

- ``"401"``: HTTP 401, a wrong API key; ``"403"``: HTTP 403, no access;
- ``"404"``: HTTP 404, the model does not exist.

Faults of the images endpoint (:data:`IMAGE_FAULT_KINDS`, also only when named; see
:mod:`tests.fakes.provider.images`): ``"refusal"`` (HTTP 400 ``content_policy_violation``),
``"blocked"`` (HTTP 400 ``moderation_blocked``), ``"empty"`` (HTTP 200 with no images),
``"corrupt"`` (bytes that are not an image) and ``"oversized"`` (a PNG declaring far more
pixels than any limit). A chat call that draws one gets its chat equivalent: a refusal in
prose, an empty reply cut by ``finish_reason: content_filter``, an empty reply, or garbage.

Example::

    faults = FaultInjector()
    faults.fail_next(["429", "truncated"])
    faults.draw()  # -> "429"
    faults.set_rate(0.3, kinds=("500", "timeout"), seed=1)
"""

from __future__ import annotations

import random
import threading
from collections import Counter, deque
from collections.abc import Iterable
from typing import Any

FAULT_KINDS: tuple[str, ...] = ("429", "500", "503", "529", "timeout", "truncated", "garbage")
"""The fault kinds of the default random mix (all of them transient or re-askable)."""

FATAL_FAULT_KINDS: tuple[str, ...] = ("401", "403", "404")
"""Faults no retry can fix; injected only when asked for by name."""

IMAGE_FAULT_KINDS: tuple[str, ...] = ("refusal", "blocked", "empty", "corrupt", "oversized")
"""Content faults meant for the images endpoint; injected only when asked for by name."""

HTTP_FAULTS: dict[str, tuple[int, str, str]] = {
    "429": (429, "rate_limit_error", "Rate limit reached (injected by fake provider)."),
    "500": (500, "server_error", "Internal server error (injected by fake provider)."),
    "503": (503, "server_error", "Service unavailable (injected by fake provider)."),
    "529": (529, "overloaded_error", "Overloaded (injected by fake provider)."),
    "401": (
        401,
        "invalid_request_error",
        "Incorrect API key provided (injected by fake provider).",
    ),
    "403": (
        403,
        "permission_error",
        "You have no access to this model (injected by fake provider).",
    ),
    "404": (404, "invalid_request_error", "The model does not exist (injected by fake provider)."),
}
"""Faults answered with an HTTP error: kind -> (status, error type, message)."""

GARBAGE_TEXT = (
    "I'm sorry, I can't produce JSON right now. Here is some prose instead: the image looks "
    "nice and the prompt is mostly followed."
)
"""Content returned by the ``"garbage"`` fault."""

REFUSAL_TEXT = "I'm sorry, but I can't help with that request."
"""Content of a chat call that draws the ``"refusal"`` fault."""


def check_kinds(kinds: Iterable[str]) -> tuple[str, ...]:
    """Validate fault kinds; raise ``ValueError`` naming the available ones on a typo."""
    result = tuple(str(k) for k in kinds)
    known = FAULT_KINDS + FATAL_FAULT_KINDS + IMAGE_FAULT_KINDS
    unknown = [k for k in result if k not in known]
    if unknown:
        raise ValueError(f"unknown fault kind(s) {unknown}; available: {', '.join(known)}")
    return result


def error_json(message: str, error_type: str, code: str | None = None) -> dict[str, Any]:
    """An OpenAI-style error body: ``{"error": {"message", "type", "param", "code"}}``."""
    return {"error": {"message": message, "type": error_type, "param": None, "code": code}}


def truncate(content: str) -> str:
    """Cut an answer in half so that JSON content no longer parses."""
    return content[: max(1, len(content) // 2)]


class FaultInjector:
    """Thread-safe decision of which fault (if any) the next call gets; counts injected faults.

    Example::

        faults = FaultInjector(rate=0.5, kinds=("429",), seed=3)
        kind = faults.draw()  # "429" or None, the same sequence for the same seed
        faults.counts         # {"429": 1} after one injected 429
    """

    def __init__(
        self, rate: float = 0.0, kinds: Iterable[str] = FAULT_KINDS, seed: int = 0
    ) -> None:
        self._lock = threading.Lock()
        self._queue: deque[str] = deque()
        self._counts: Counter[str] = Counter()
        self._rate = 0.0
        self._kinds: tuple[str, ...] = FAULT_KINDS
        self._seed = seed
        self._rng = random.Random(seed)
        self.set_rate(rate, kinds=kinds, seed=seed)

    def fail_next(self, kinds: Iterable[str]) -> None:
        """Queue faults for the next calls, in order (appends to any already queued)."""
        checked = check_kinds(kinds)
        with self._lock:
            self._queue.extend(checked)

    def set_rate(
        self, rate: float, kinds: Iterable[str] = FAULT_KINDS, seed: int | None = None
    ) -> None:
        """Fault each call with probability ``rate`` (0..1); reseed the generator with ``seed``."""
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"fault rate must be within [0, 1], got {rate}")
        checked = check_kinds(kinds)
        if not checked:
            raise ValueError("at least one fault kind is needed")
        with self._lock:
            self._rate = float(rate)
            self._kinds = checked
            if seed is not None:
                self._seed = seed
            self._rng = random.Random(self._seed)

    def draw(self) -> str | None:
        """Decide the fault for one call: the queued kind, a random kind, or ``None``."""
        with self._lock:
            if self._queue:
                kind: str | None = self._queue.popleft()
            elif self._rate > 0.0 and self._rng.random() < self._rate:
                kind = self._rng.choice(self._kinds)
            else:
                kind = None
            if kind is not None:
                self._counts[kind] += 1
            return kind

    @property
    def counts(self) -> dict[str, int]:
        """Injected faults so far, per kind."""
        with self._lock:
            return dict(self._counts)

    @property
    def settings(self) -> dict[str, Any]:
        """The current rate, kinds, seed and number of queued faults."""
        with self._lock:
            return {
                "fault_rate": self._rate,
                "fault_kinds": list(self._kinds),
                "seed": self._seed,
                "queued": len(self._queue),
            }

    def reset(self) -> None:
        """Clear queue and counts, set the rate to 0 and reseed."""
        with self._lock:
            self._queue.clear()
            self._counts.clear()
            self._rate = 0.0
            self._kinds = FAULT_KINDS
            self._rng = random.Random(self._seed)
