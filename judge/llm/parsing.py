"""Read a JSON object out of a model reply and validate it against a schema.

Example:
    >>> from pydantic import BaseModel
    >>> class A(BaseModel):
    ...     verdict: bool
    >>> parse_reply('```json\\n{"verdict": true}\\n```', A).verdict
    True
"""

from __future__ import annotations

import json
from typing import TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)


class ReplyError(ValueError):
    """The reply holds no JSON object matching the schema."""


def extract_json(text: str) -> str:
    """The outermost ``{...}`` of a reply, tolerating code fences and prose around it."""
    start = text.find("{")
    end = text.rfind("}")
    if start < 0 or end <= start:
        raise ReplyError("the reply contains no JSON object")
    return text[start : end + 1]


def parse_reply(text: str | None, schema: type[T]) -> T:
    """Validate ``text`` against ``schema``; raise :class:`ReplyError` with a short reason."""
    if not text or not text.strip():
        raise ReplyError("the reply was empty")
    try:
        return schema.model_validate_json(extract_json(text))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in exc.errors()[:5]
        )
        raise ReplyError(f"the JSON does not match the schema: {problems}") from None
    except json.JSONDecodeError as exc:  # pragma: no cover - pydantic wraps these
        raise ReplyError(f"invalid JSON: {exc}") from None
