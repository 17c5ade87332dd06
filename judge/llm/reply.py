"""One model call's outcome as the gateway accounts it, whichever route answered it.

Example:
    >>> r = Reply(text='{"ok": true}', prompt_tokens=12, completion_tokens=4, cost=0.0)
    >>> r.text, r.prompt_tokens + r.completion_tokens
    ('{"ok": true}', 16)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judge.llm import litellm_settings
from judge.llm.ratelimit_headers import RateHeaders, headers_of

_UNPRICED: set[str] = set()


@dataclass(frozen=True)
class Reply:
    """The text, the tokens and cost to account, and the provider's rate-limit headers."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    cost: float
    headers: RateHeaders | None = None


def litellm_cost(model: str, resp: Any) -> float:
    """A litellm response's cost from litellm's price map; models it cannot price are
    remembered (and cost 0).

    litellm prices every response as it builds it (``_hidden_params["response_cost"]``);
    that figure is used when present, so a call is not priced twice.
    """
    hidden = getattr(resp, "_hidden_params", None)
    if isinstance(hidden, dict) and hidden.get("response_cost") is not None:
        return float(hidden["response_cost"])
    if model in _UNPRICED:
        return 0.0
    try:
        return float(litellm_settings.load().completion_cost(completion_response=resp) or 0.0)
    except Exception:  # litellm raises for models missing from its price map
        _UNPRICED.add(model)
        return 0.0


def from_litellm(model: str, resp: Any) -> Reply:
    """The :class:`Reply` of a litellm ``ModelResponse``."""
    usage = getattr(resp, "usage", None)
    return Reply(
        text=resp.choices[0].message.content or "",
        prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
        completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
        cost=litellm_cost(model, resp),
        headers=headers_of(resp),
    )
