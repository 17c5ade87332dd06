"""Parse any mode's request body: bare, or wrapped with per-request options.

A body is a mode's request (``{"mode": "compare", ...}`` picks the mode; the route gives the
default), or the wrapped form ``{"<wrapper_key>": request, "options": {...}}`` where the
wrapper key is the mode's (``submission`` for ``score``, ``comparison`` for ``compare``).
Every problem is an :class:`~judge.errors.InputError` naming the field.

Example:
    >>> p = parse_request({"submission": {"task": {"id": "t", "category": "OE", "brief": "b"},
    ...                    "prompt": "p"}, "options": {"retrieval": "none"}})
    >>> p.mode.name, p.overrides
    ('score', {'retrieval': 'none'})
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from judge.errors import InputError
from judge.modes import Mode, get_mode, mode_of


@dataclass(frozen=True)
class ParsedRequest:
    """A validated request, its mode and the engine overrides its options ask for."""

    mode: Mode
    request: BaseModel
    overrides: dict[str, Any]
    wrapped: bool = False


def prefixed(prefix: str, exc: InputError) -> InputError:
    """``exc`` with its field moved under ``prefix`` (the wrapper key)."""
    if exc.field.startswith("("):  # the whole object
        return InputError(prefix, exc.message)
    return InputError(f"{prefix}.{exc.field}", exc.message)


def parse_options(mode: Mode, options: Any, field: str = "options") -> BaseModel:
    """Validate a mode's per-request options; errors name ``options.<name>``."""
    if not isinstance(options, dict):
        raise InputError(field, f"expected a JSON object, got {type(options).__name__}")
    try:
        return mode.options_model.model_validate(options)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        msg = "unknown option" if err["type"] == "extra_forbidden" else err["msg"]
        raise InputError(f"{field}.{loc}" if loc else field, msg) from None


def parse_request(body: Any, default_mode: str = "score") -> ParsedRequest:
    """Validate a request body of any mode."""
    if not isinstance(body, dict):
        root = f"({get_mode(default_mode).wrapper_key})"
        raise InputError(root, f"expected a JSON object, got {type(body).__name__}")
    mode = mode_of(body, default_mode)
    key = mode.wrapper_key
    if key not in body:
        return ParsedRequest(mode, mode.parse(body), {})
    extra = sorted(set(body) - {key, "options", "mode"})
    if extra:
        raise InputError(extra[0], "unknown field (expected only the request and options)")
    if not isinstance(body[key], dict):
        raise InputError(key, f"expected a JSON object, got {type(body[key]).__name__}")
    try:
        request = mode.parse(body[key])
    except InputError as exc:
        raise prefixed(key, exc) from None
    options = parse_options(mode, body.get("options", {}))
    return ParsedRequest(mode, request, options.overrides(), wrapped=True)  # type: ignore[attr-defined]


def check_request(parsed: ParsedRequest, judge: Any) -> None:
    """Reject unknown cards/criteria before anything runs; errors name the option or field."""
    try:
        settings = judge.settings.merged(**parsed.overrides)
        parsed.mode.check(parsed.request, judge.registry, settings)
    except InputError as exc:
        if exc.field == "skills":
            raise InputError("options.skills", exc.message) from None
        raise (prefixed(parsed.mode.wrapper_key, exc) if parsed.wrapped else exc) from None


def body_schema(*models: str) -> dict[str, Any]:
    """OpenAPI ``requestBody`` saying the body is one of ``models`` (component names), for
    routes that read the body themselves (bare or wrapped forms).

    Example:
        >>> body_schema("Submission")["requestBody"]["content"]["application/json"]["schema"]
        {'oneOf': [{'$ref': '#/components/schemas/Submission'}]}
    """
    refs = [{"$ref": f"#/components/schemas/{m}"} for m in models]
    return {
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"oneOf": refs}}},
        }
    }
