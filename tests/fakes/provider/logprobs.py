"""Log-probabilities for the fake OpenAI provider: what ``logprobs: true`` gets back.

The reply's text is cut into tokens (runs of letters or digits, runs of spaces, single
other characters); every token gets a log-probability. An *answer token* (``true``,
``false``, ``first``, ``second``, ``tie``, a digit 1–5) gets the probability
``probabilities[token]`` (``default`` when not scripted) and, among its ``top_logprobs``,
the other answers of its kind sharing the rest; other tokens are certain (log-probability 0).

Example:
    >>> content = logprobs_content('{"verdict": true}', {}, 0.9, top=3)
    >>> [(t["token"], round(t["logprob"], 3)) for t in content if t["logprob"] < 0]
    [('true', -0.105)]
    >>> [a["token"] for a in content[6]["top_logprobs"]]
    ['true', 'false']
"""

from __future__ import annotations

import math
import re
from typing import Any

TOKEN = re.compile(r"\s+|\w+|[^\w\s]")
KINDS = (("true", "false"), ("first", "second", "tie"), ("1", "2", "3", "4", "5"))


def _kind(token: str) -> tuple[str, ...] | None:
    return next((k for k in KINDS if token in k), None)


def _entry(token: str, p: float) -> dict[str, Any]:
    return {"token": token, "logprob": math.log(p) if p > 0 else -9999.0,
            "bytes": list(token.encode())}  # fmt: skip


def logprobs_content(
    text: str, probabilities: dict[str, float], default: float, top: int
) -> list[dict[str, Any]]:
    """OpenAI's ``choices[0].logprobs.content`` for ``text``."""
    out = []
    for token in TOKEN.findall(text):
        kind = _kind(token)
        if kind is None:
            entry = _entry(token, 1.0)
            entry["top_logprobs"] = [_entry(token, 1.0)][:top]
            out.append(entry)
            continue
        p = probabilities.get(token, default)
        others = [k for k in kind if k != token]
        rest = (1.0 - p) / len(others)
        entry = _entry(token, p)
        entry["top_logprobs"] = ([_entry(token, p)] + [_entry(o, rest) for o in others])[:top]
        out.append(entry)
    return out
