"""The mock judge model: try the whole pipeline with no server, no key and no network.

The model string ``mock/judge`` (that one only: any other ``mock/...`` is refused, see
:func:`refusal`) is answered in process: every
structured call gets a schema-valid answer built from the answer's JSON Schema, passed to
litellm as ``mock_response``, so the gateway, parsing, retries and accounting run as with a
real provider. **The scores mean nothing**: they are picked from a hash of the request, the
same request always gets the same answer, and every rationale says it comes from the mock.
Use it to see the shape of results, to wire a pipeline, or in tests; never to judge.

    JUDGE_MODEL=mock/judge judge score examples/co_106/submission.json

How a value is made from a JSON Schema (pydantic v2 output: ``$defs``/``$ref``,
``anyOf``/``oneOf``/``allOf``, ``enum``, ``const``, objects, arrays, scalars):

- integer → a value in ``[minimum, maximum]`` (default 0..10) picked from a hash of the request
  and the field path; number → likewise, rounded to 2 decimals;
- boolean → ``true``, except properties whose name starts with ``flag`` (safety screens) →
  ``false``; null → ``null``; string → the answerer's text (a few ``format`` values honoured);
- enum → first value; const → the constant; ``anyOf`` → first non-null branch;
- objects → every declared property; arrays → ``minItems`` items, except that an array of
  objects with an enum-valued property (``id`` first) gets one item per enum value, so a
  batched checklist answer covers every checkpoint;
- a *sample* (a call at a temperature above 0 with a ``seed``, as ``samples:K`` confidence
  makes) starts from the same answer and changes some of its choices: each yes/no, enum or
  integer field has a made-up difficulty (0 to 0.5, from the request and the field) and is
  changed with that probability (a boolean flipped, an enum moved to another value, an
  integer moved by one), drawn from the seed; safety ``flag`` fields never change;
- bounds stated only in words (``minimum value: 1`` in a ``description``, as litellm writes
  them for some providers) are honoured.

Example:
    >>> from pydantic import BaseModel, Field
    >>> class Score(BaseModel):
    ...     score: int = Field(ge=1, le=5)
    ...     rationale: str
    >>> fmt = {"type": "json_schema",
    ...        "json_schema": {"name": "s", "schema": Score.model_json_schema()}}
    >>> s = Score.model_validate_json(answer([{"role": "user", "content": "hi"}], fmt))
    >>> 1 <= s.score <= 5, s.rationale == MOCK_TEXT
    (True, True)
    >>> is_mock("mock/judge"), is_mock("openai/gpt-4o"), is_mock("mock/gpt-4o")
    (True, False, False)
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from judge.json_digest import json_sha256

PREFIX = "mock/"
NAME = "mock/judge"
#: what litellm is asked for: an OpenAI-shaped model that ``mock_response`` answers locally
LITELLM_MODEL = "openai/mock-judge"
MOCK_TEXT = "mock model answer: made up, means nothing"
FALLBACK_ANSWER: dict[str, Any] = {"answer": "ok"}
_FORMATS = {
    "date-time": "2024-01-01T00:00:00Z",
    "date": "2024-01-01",
    "time": "00:00:00Z",
    "email": "mock@example.com",
    "uri": "https://example.com/mock",
    "uuid": "00000000-0000-4000-8000-000000000000",
}


def is_mock(model: str) -> bool:
    """Whether ``model`` names the in-process mock (:data:`NAME`, exactly)."""
    return model == NAME


def refusal(model: str) -> str | None:
    """Why ``model`` is refused when it looks like the mock but is not :data:`NAME` (a
    ``mock/`` prefix on anything else used to run the mock too), else None.

    Example:
        >>> refusal("mock/gpt-4o")  # doctest: +ELLIPSIS
        "'mock/gpt-4o': only mock/judge is the mock model ..."
        >>> refusal("mock/judge") is None, refusal("openai/gpt-4o") is None
        (True, True)
    """
    if model.lower().startswith(PREFIX) and model != NAME:
        return (f"{model!r}: only {NAME} is the mock model (made-up scores, no provider); "
                "name it exactly, or give a real provider/model")  # fmt: skip
    return None


def schema_of(fmt: dict[str, Any] | None) -> dict[str, Any] | None:
    """The JSON Schema of a ``response_format`` (``json_schema`` type), or ``None``."""
    if not isinstance(fmt, dict) or fmt.get("type") != "json_schema":
        return None
    spec = fmt.get("json_schema") or {}
    schema = spec.get("schema") if isinstance(spec, dict) else None
    return schema if isinstance(schema, dict) else None


def answer(
    messages: list[dict],
    fmt: dict[str, Any] | None,
    text: str = MOCK_TEXT,
    sample: int | None = None,
) -> str:
    """A deterministic answer (JSON text) valid against ``fmt``'s schema; ``sample`` (a
    seed) varies some of its choices as a sampled answer would."""
    schema = schema_of(fmt)
    if schema is None:
        return json.dumps(FALLBACK_ANSWER)
    seed = json_sha256(messages, sort_keys=True, default=str)
    return json.dumps(SchemaAnswerer(schema, seed, text, sample).value(schema, "$"))


def sample_of(params: dict[str, Any]) -> int | None:
    """The sample a call's parameters ask for: its ``seed`` when the temperature is above 0.

    Example:
        >>> sample_of({"temperature": 1.0, "seed": 3}), sample_of({"temperature": 0.0, "seed": 3})
        (3, None)
    """
    seed = params.get("seed")
    warm = (params.get("temperature") or 0) > 0
    return int(seed) if warm and isinstance(seed, int) and not isinstance(seed, bool) else None


def litellm_kwargs(
    messages: list[dict], fmt: dict[str, Any] | None, sample: int | None = None
) -> dict[str, Any]:
    """What the gateway passes to litellm instead of a provider's model, base and key."""
    return {"model": LITELLM_MODEL, "mock_response": answer(messages, fmt, sample=sample)}


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


class SchemaAnswerer:
    """Walks one JSON Schema and produces a value for it (deterministic in ``seed``: a string,
    or a ``hashlib.sha256`` object that has already hashed it)."""

    def __init__(
        self,
        root: dict[str, Any],
        seed: str | Any,
        text: str = MOCK_TEXT,
        sample: int | None = None,
    ) -> None:
        self.root = root
        # each pick hashes seed|path: the seed's part is hashed once and copied per pick
        self._seed = hashlib.sha256(seed.encode()) if isinstance(seed, str) else seed
        self.text = text
        self.sample = sample

    def varied(self, path: str) -> bool:
        """Whether a sample changes the choice at ``path`` (never without a sample)."""
        if self.sample is None or path.rsplit(".", 1)[-1].startswith("flag"):
            return False
        difficulty = self.pick(f"{path}|difficulty", 0, 50)
        return self.pick(f"{path}|sample{self.sample}", 0, 99) < difficulty

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
        hasher = self._seed.copy()
        hasher.update(f"|{path}".encode())
        digest = hasher.digest()
        return low + int.from_bytes(digest[:8], "big") % (high - low + 1)

    def value(self, schema: Any, path: str) -> Any:
        if not isinstance(schema, dict):
            return None
        schema = self.resolve(schema)
        if "const" in schema:
            return schema["const"]
        if schema.get("enum"):
            values = schema["enum"]
            if len(values) > 1 and self.varied(path):
                return values[1 + self.pick(f"{path}|other", 0, len(values) - 2)]
            return values[0]
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
        lo, hi = int(-(-low // 1)), int(high // 1)
        value = self.pick(path, lo, hi)
        if hi > lo and self.varied(path):
            step = 1 if self.pick(f"{path}|up", 0, 1) else -1
            value = value + step if lo <= value + step <= hi else value - step
        return value

    def _number(self, schema: dict[str, Any], path: str) -> float:
        low, high = self._bounds(schema, 0.01)
        value = low + (high - low) * self.pick(path, 0, 1000) / 1000
        return min(max(round(value, 2), low), high)

    def _boolean(self, schema: dict[str, Any], path: str) -> bool:
        # Safety screens answer ``flagged``; a fake that flags everything blocks every test.
        base = not path.rsplit(".", 1)[-1].startswith("flag")
        return not base if self.varied(path) else base

    def _null(self, schema: dict[str, Any], path: str) -> None:
        return None

    def _string(self, schema: dict[str, Any], path: str) -> str:
        text = _FORMATS.get(schema.get("format", ""), self.text)
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
