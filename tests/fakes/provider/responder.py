"""What the fake provider answers: scripted replies first, else a schema-valid default.

:func:`default_answer` builds an answer from the request's ``response_format``
(``{"type": "json_schema", "json_schema": {"name": ..., "schema": {...}}}``) by walking the JSON
Schema (pydantic v2 output: ``$defs``/``$ref``, ``anyOf``/``oneOf``/``allOf``, ``enum``,
``const``, objects, arrays, integer, number, boolean, string, null):

- integer → a value in ``[minimum, maximum]`` (default range 0..10) picked from a hash of the
  request messages and the field path: different prompts can get different scores, the same
  request always gets the same answer;
- number → likewise, rounded to 2 decimals; boolean → ``true``, except properties whose name
  starts with ``flag`` (safety screens) → ``false``; null → ``null``;
- string → ``"fake rationale"`` (length-adjusted; a few ``format`` values are honoured);
- enum → first value; const → the constant; ``anyOf`` → first non-null branch;
- objects → every declared property; arrays → ``minItems`` items (none by default);
- bounds a schema states only in words (litellm moves ``minimum``/``maximum``/``minLength``/
  ``minItems``… into ``description`` notes such as ``minimum value: 1`` for Anthropic's native
  structured output) are honoured, as a model reading the description would;
- special rule: an array whose ``items`` is an object with an enum-valued property (the property
  named ``id`` if it has an enum, else the first such property) gets exactly one item per enum
  value, so a "batched checklist" answer covers every id.

Without a JSON schema the answer is the text ``{"answer": "ok"}``.

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

import hashlib
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Body = dict[str, Any]
Match = str | Callable[[Body], bool]
Reply = dict[str, Any] | str | Callable[[Body], dict[str, Any] | str]

FALLBACK_ANSWER: dict[str, Any] = {"answer": "ok"}
FAKE_TEXT = "fake rationale"
_FORMATS = {
    "date-time": "2024-01-01T00:00:00Z",
    "date": "2024-01-01",
    "time": "00:00:00Z",
    "email": "fake@example.com",
    "uri": "https://example.com/fake",
    "uuid": "00000000-0000-4000-8000-000000000000",
}


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
    fmt = body.get("response_format")
    if not isinstance(fmt, dict) or fmt.get("type") != "json_schema":
        return None
    spec = fmt.get("json_schema") or {}
    schema = spec.get("schema") if isinstance(spec, dict) else None
    return schema if isinstance(schema, dict) else None


def default_answer(body: Body) -> str:
    """A deterministic answer (JSON text) valid against the request's ``response_format``."""
    schema = response_schema(body)
    if schema is None:
        return json.dumps(FALLBACK_ANSWER)
    seed = json.dumps(body.get("messages"), sort_keys=True, default=str)
    return json.dumps(_SchemaFaker(schema, seed).value(schema, "$"))


_STATED = {
    "minimum value": "minimum",
    "maximum value": "maximum",
    "exclusive minimum value": "exclusiveMinimum",
    "exclusive maximum value": "exclusiveMaximum",
    "minimum length": "minLength",
    "maximum length": "maxLength",
    "minimum number of items": "minItems",
    "maximum number of items": "maxItems",
}
_STATED_RE = re.compile(r"(?<![a-z])(" + "|".join(_STATED) + r"): (-?\d+(?:\.\d+)?)")


def _stated_bounds(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` plus the numeric bounds its ``description`` states in words."""
    text = schema.get("description")
    if not isinstance(text, str):
        return schema
    found = {_STATED[label]: float(num) for label, num in _STATED_RE.findall(text)}
    extra = {k: int(v) if v.is_integer() else v for k, v in found.items() if k not in schema}
    return {**schema, **extra} if extra else schema


class _SchemaFaker:
    """Walks one JSON Schema and produces a value for it."""

    def __init__(self, root: dict[str, Any], seed: str) -> None:
        self.root = root
        self.seed = seed

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        """Follow local ``$ref`` pointers (``#/$defs/X``, or ``/$defs/X`` as litellm writes them
        for Anthropic tools) until a concrete schema remains; bounds stated in words apply."""
        seen: set[str] = set()
        while "$ref" in schema and schema["$ref"] not in seen:
            ref = schema["$ref"]
            seen.add(ref)
            node: Any = self.root
            path = ref.removeprefix("#").removeprefix("/")
            for part in path.split("/") if path else []:
                node = node[part.replace("~1", "/").replace("~0", "~")]
            schema = node
        return _stated_bounds(schema)

    def pick(self, path: str, low: int, high: int) -> int:
        digest = hashlib.sha256(f"{self.seed}|{path}".encode()).digest()
        return low + int.from_bytes(digest[:8], "big") % (high - low + 1)

    def value(self, schema: Any, path: str) -> Any:
        if not isinstance(schema, dict):
            return None
        schema = self.resolve(schema)
        if "const" in schema:
            return schema["const"]
        if schema.get("enum"):
            return schema["enum"][0]
        for key in ("anyOf", "oneOf"):
            if schema.get(key):
                branches = [self.resolve(b) for b in schema[key]]
                chosen = next((b for b in branches if b.get("type") != "null"), branches[0])
                return self.value(chosen, path)
        if schema.get("allOf"):
            merged: dict[str, Any] = {}
            for part in schema["allOf"]:
                merged.update(self.resolve(part))
            return self.value(merged, path)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if kind is None:
            kind = "object" if "properties" in schema else "string"
        maker = getattr(self, f"_{kind}", None)
        return maker(schema, path) if maker else None

    def _bounds(self, schema: dict[str, Any], step: float) -> tuple[float, float]:
        low = schema.get("minimum")
        high = schema.get("maximum")
        if "exclusiveMinimum" in schema:
            low = schema["exclusiveMinimum"] + step
        if "exclusiveMaximum" in schema:
            high = schema["exclusiveMaximum"] - step
        if low is None:
            low = 0 if high is None or high >= 0 else high - 10
        if high is None:
            high = low + 10
        return low, max(low, high)

    def _integer(self, schema: dict[str, Any], path: str) -> int:
        low, high = self._bounds(schema, 1)
        return self.pick(path, int(-(-low // 1)), int(high // 1))

    def _number(self, schema: dict[str, Any], path: str) -> float:
        low, high = self._bounds(schema, 0.01)
        value = low + (high - low) * self.pick(path, 0, 1000) / 1000
        return min(max(round(value, 2), low), high)

    def _boolean(self, schema: dict[str, Any], path: str) -> bool:
        # Safety screens answer ``flagged``; a fake that flags everything blocks every test.
        return not path.rsplit(".", 1)[-1].startswith("flag")

    def _null(self, schema: dict[str, Any], path: str) -> None:
        return None

    def _string(self, schema: dict[str, Any], path: str) -> str:
        text = _FORMATS.get(schema.get("format", ""), FAKE_TEXT)
        text = text.ljust(int(schema.get("minLength", 0)), ".")
        return text[: int(schema["maxLength"])] if "maxLength" in schema else text

    def _object(self, schema: dict[str, Any], path: str) -> dict[str, Any]:
        props = schema.get("properties") or {}
        return {name: self.value(sub, f"{path}.{name}") for name, sub in props.items()}

    def _array(self, schema: dict[str, Any], path: str) -> list[Any]:
        items = self.resolve(schema.get("items") or {})
        max_items = schema.get("maxItems")
        enum_prop = self._enum_property(items)
        if enum_prop is not None:
            name, values = enum_prop
            result = []
            for i, enum_value in enumerate(values):
                item = self.value(items, f"{path}[{i}]")
                item[name] = enum_value
                result.append(item)
        else:
            count = int(schema.get("minItems", 0))
            result = [self.value(items, f"{path}[{i}]") for i in range(count)]
        return result[:max_items] if max_items is not None else result

    def _enum_property(self, items: dict[str, Any]) -> tuple[str, list[Any]] | None:
        """For the one-item-per-enum-value rule: (property name, enum values) or ``None``."""
        if items.get("type") != "object" and "properties" not in items:
            return None
        found: list[tuple[str, list[Any]]] = []
        for name, sub in (items.get("properties") or {}).items():
            sub = self.resolve(sub) if isinstance(sub, dict) else {}
            if sub.get("enum"):
                found.append((name, list(sub["enum"])))
        by_name = dict(found)
        if "id" in by_name:
            return "id", by_name["id"]
        return found[0] if found else None


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
