"""What the fake provider answers: scripted replies first, else a schema-valid default.

:func:`default_answer` builds an answer from the request's ``response_format`` with the
product's schema answerer (:mod:`judge.llm.mock`, where its rules are listed), with the text
``"fake rationale"`` for strings. Without a JSON schema the answer is ``{"answer": "ok"}``.

Example::

    body = {"messages": [{"role": "user", "content": "score it"}],
            "response_format": {"type": "json_schema",
                                "json_schema": {"name": "s", "schema": Score.model_json_schema()}}}
    Score.model_validate_json(default_answer(body))

    responder = Responder()
    responder.on("checklist", {"items": []}, times=1)   # substring of any message
    responder.on(lambda body: body["model"] == "m", "raw text")
    responder.respond(body)
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from judge.llm.mock import answer, sample_of, schema_of

Body = dict[str, Any]
Match = str | Callable[[Body], bool]
Reply = dict[str, Any] | str | Callable[[Body], dict[str, Any] | str]

FAKE_TEXT = "fake rationale"


def messages_text(body: Body) -> str:
    """All text of all messages (system included), joined by newlines; image parts skipped."""
    parts: list[str] = []
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(
                str(p.get("text", "")) for p in content if isinstance(p, dict) and "text" in p
            )
    return "\n".join(parts)


def response_schema(body: Body) -> dict[str, Any] | None:
    """The JSON Schema in ``response_format`` (``json_schema`` type), or ``None``."""
    return schema_of(body.get("response_format"))


def default_answer(body: Body) -> str:
    """A deterministic answer (JSON text) valid against the request's ``response_format``
    (the product's mock answerer, :mod:`judge.llm.mock`, with the harness's text); a call at
    a temperature above 0 with a ``seed`` gets that sample's answer, as the mock gives it."""
    sample = sample_of(body)
    return answer(body.get("messages") or [], body.get("response_format"), FAKE_TEXT, sample)


@dataclass
class ScriptRule:
    """One scripted reply: when ``match`` fits a request, answer ``reply`` (``times`` at most)."""

    match: Match
    reply: Reply
    times: int | None = None
    hits: int = 0

    def matches(self, body: Body) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        if callable(self.match):
            return bool(self.match(body))
        return self.match in messages_text(body)

    def render(self, body: Body) -> str:
        reply = self.reply(body) if callable(self.reply) else self.reply
        return reply if isinstance(reply, str) else json.dumps(reply)


class Responder:
    """Scripted replies, tried in registration order (first match wins), else the default."""

    def __init__(self) -> None:
        self._lock = threading.RLock()  # a match callable may itself call on()
        self._rules: list[ScriptRule] = []

    def on(self, match: Match, reply: Reply, times: int | None = None) -> ScriptRule:
        """Script a reply; ``match`` is a substring of the messages' text or ``(body) -> bool``."""
        if times is not None and times < 1:
            raise ValueError(f"times must be >= 1 or None, got {times}")
        rule = ScriptRule(match, reply, times)
        with self._lock:
            self._rules.append(rule)
        return rule

    def respond(self, body: Body, consume: bool = True) -> str:
        """Content for ``body``; with ``consume=False`` no rule uses up one of its ``times``."""
        with self._lock:
            rule = next((r for r in self._rules if r.matches(body)), None)
            if rule is not None and consume:
                rule.hits += 1
        return rule.render(body) if rule is not None else default_answer(body)

    def reset(self) -> None:
        """Forget all scripted replies."""
        with self._lock:
            self._rules.clear()
