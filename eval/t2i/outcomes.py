"""Map provider errors to a generation status: refused, blocked, retry, or failed with advice.

- ``refused``: the provider declined the prompt under its content policy (litellm's
  ``ContentPolicyViolationError``, an HTTP 400 whose code is ``content_policy_violation``, or a
  400 that says the prompt was rejected by a safety system);
- ``blocked``: a moderation or safety filter withheld the output (code ``moderation_blocked``,
  output "filtered"/"blocked" messages such as Imagen's RAI filter or Bedrock's);
- transient errors (429, 5xx, timeouts, dropped connections) are retried
  (:func:`judge.llm.retry.is_transient`);
- anything else is ``failed`` with a reason that names the backend and what to check.

Example:
    >>> import re

import litellm
    >>> classify(litellm.ContentPolicyViolationError("rejected", "m", "openai"), "b", "m")[0]
    'refused'
    >>> classify(litellm.AuthenticationError("bad key", "openai", "m"), "b", "m")[0]
    'failed'
"""

from __future__ import annotations

import re
from typing import Literal

import litellm

from eval.t2i.generation import Status
from judge.llm.retry import describe, fatal_cause

_BLOCKED = ("moderation_blocked", "output was blocked", "image was flagged", "filtered",
            "raifilteredreason", "responsible ai", "content_filter")  # fmt: skip
_REFUSED = ("content_policy_violation", "content policy", "safety system", "usage policy",
            "safety filter", "safety reasons", "prompt was blocked")  # fmt: skip

ADVICE = {
    "connection refused": "is the image server running, and is the backend's api_base right?",
    "unknown host": "check the host name in the backend's api_base",
    "authentication failed (HTTP 401)": "check the key in the variable named by api_key_env",
    "permission denied (HTTP 403)": "check that the key may use this image model",
    "model or endpoint not found (HTTP 404)": (
        "check the backend's model string and api_base (an OpenAI-compatible server needs "
        "POST /v1/images/generations)"
    ),
    "unknown provider or model": "use a litellm image model string such as 'openai/dall-e-3'",
}


def _error_text(exc: BaseException) -> str:
    parts = [str(exc)]
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        parts += [str(body.get("code") or ""), str(body.get("type") or "")]
    parts.append(str(getattr(exc, "code", "") or ""))
    return " ".join(parts).lower()


_PREFIX = re.compile(r"^(?:litellm\.)?[A-Za-z]*(?:Error|Exception)(?::| -)\s*")


def _short(exc: BaseException) -> str:
    """The provider's own message, without litellm's stacked class-name prefixes."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        code = f" [{body['code']}]" if body.get("code") else ""
        return body["message"][:300] + code
    text = describe(exc)
    while (m := _PREFIX.match(text)) is not None and m.end() < len(text):
        text = text[m.end() :]
    return text[:300]


def content_status(exc: BaseException) -> Literal["blocked", "refused"] | None:
    """``"refused"`` or ``"blocked"`` for a content-policy answer, else None."""
    status = getattr(exc, "status_code", None)
    policy = isinstance(exc, litellm.ContentPolicyViolationError)
    if not policy and status not in (400, 422):
        return None
    text = _error_text(exc)
    if any(m in text for m in _BLOCKED):
        return "blocked"
    if policy or any(m in text for m in _REFUSED):
        return "refused"
    return None


def classify(exc: BaseException, backend: str, model: str) -> tuple[Status, str]:
    """``(status, reason)`` for an error that is not retried (or no longer)."""
    kind = content_status(exc)
    if kind is not None:
        return kind, f"{kind} by the provider's content policy: {_short(exc)}"
    cause = fatal_cause(exc)
    where = f"backend {backend} ({model})"
    if cause is not None:
        advice = ADVICE.get(cause, "check the backend settings")
        return "failed", f"{where}: {cause}; not retried: {advice}"
    return "failed", f"{where}: {_short(exc)}"
