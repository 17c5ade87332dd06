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
    """The text, the tokens and cost to account, the provider's rate-limit headers and,
    when they were asked for and given, the answer's tokens with their log-probabilities."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    cost: float
    headers: RateHeaders | None = None
    logprobs: tuple[TokenLogprob, ...] | None = None


@dataclass(frozen=True)
class TokenLogprob:
    """One answer token, its log-probability and the most likely alternatives there."""

    token: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def logprobs_of(choice: Any) -> tuple[TokenLogprob, ...] | None:
    """The tokens of a chat choice's ``logprobs.content`` (OpenAI's shape, as litellm keeps
    it), or None when the provider gave none."""
    content = _get(_get(choice, "logprobs"), "content")
    if not content:
        return None
    out = []
    for t in content:
        token, lp = _get(t, "token"), _get(t, "logprob")
        if not isinstance(token, str) or not isinstance(lp, int | float):
            return None
        top = tuple(
            (str(_get(a, "token")), float(_get(a, "logprob")))
            for a in (_get(t, "top_logprobs") or [])
            if isinstance(_get(a, "logprob"), int | float)
        )
        out.append(TokenLogprob(token, float(lp), top))
    return tuple(out)


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
        logprobs=logprobs_of(resp.choices[0]),
    )
