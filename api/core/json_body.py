"""Decode a JSON request body safely: one code path for every route that reads raw JSON.

``json.loads`` alone lets three kinds of hostile body through to a 500 or to storage:
integers of thousands of digits (Python refuses to convert them: ``ValueError``), nesting
deep enough to exhaust the recursion limit (``RecursionError``), and ``"\\ud800"`` escapes
that decode to lone surrogates (valid JSON, but not Unicode: storing one makes every later
page that shows it fail to encode). :func:`loads` turns each into an
:class:`~judge.errors.InputError` (a 400 naming the problem and where it is).

Example:
    >>> loads(b'{"topic": "counting", "depth": 2}')
    {'topic': 'counting', 'depth': 2}
    >>> try:
    ...     loads(b'{"topic": "a \\\\ud800 b"}')
    ... except InputError as exc:
    ...     print(exc)
    topic: not valid Unicode text (a lone surrogate)
"""

from __future__ import annotations

import json
from typing import Any

from fastapi.responses import JSONResponse

from judge.errors import InputError

MAX_INT_DIGITS = 64
"""Integers longer than this (sign excluded) are refused: no option needs more."""

MAX_DEPTH = 64
"""Arrays/objects nested deeper than this are refused (well under the recursion limit)."""


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _Refused(f"an integer of {len(text.lstrip('-'))} digits (at most {MAX_INT_DIGITS})")
    return int(text)


class _Refused(ValueError):
    """A body refused while decoding (the message says why)."""


class NotJSON(InputError):
    """Text that is not JSON at all; ``reason`` is the decoder's (e.g. ``Extra data``)."""

    def __init__(self, field: str, reason: str, lineno: int):
        super().__init__(field, f"not valid JSON ({reason}, line {lineno})")
        self.reason = reason


def _path(parent: str, part: str | int) -> str:
    if isinstance(part, int):
        return f"{parent}[{part}]" if parent else f"[{part}]"
    return f"{parent}.{part}" if parent else part


def _check(value: Any, where: str, root: str) -> None:
    """Lone surrogates anywhere (keys included) and nesting over :data:`MAX_DEPTH`."""
    stack: list[tuple[Any, str, int]] = [(value, where, 0)]
    while stack:
        item, at, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InputError(root, f"nested more than {MAX_DEPTH} levels deep")
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise InputError(at or root, "not valid Unicode text (a lone surrogate)") from None
        elif isinstance(item, dict):
            for k, v in item.items():
                _check(k, at or root, root)
                stack.append((v, _path(at, str(k)), depth + 1))
        elif isinstance(item, list):
            stack.extend((v, _path(at, i), depth + 1) for i, v in enumerate(item))


def loads(raw: bytes | str, field: str = "(body)", *, prefix: str = "") -> Any:
    """The JSON value of ``raw``; :class:`InputError` naming ``field`` (or the offending
    member, under ``prefix``) for text that is not UTF-8 or not JSON, integers over
    :data:`MAX_INT_DIGITS` digits, nesting over :data:`MAX_DEPTH` levels, lone surrogates."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InputError(field, "the body is not UTF-8 text") from None
    try:
        value = json.loads(raw, parse_int=_int)
    except _Refused as exc:
        raise InputError(field, f"{exc} in the JSON") from None
    except json.JSONDecodeError as exc:
        raise NotJSON(field, exc.msg, exc.lineno) from None
    except RecursionError:
        raise InputError(field, f"nested more than {MAX_DEPTH} levels deep") from None
    except ValueError as exc:  # e.g. a float literal Python cannot convert
        raise InputError(field, f"not valid JSON ({exc})") from None
    _check(value, prefix, field)
    return value


class SafeJSONResponse(JSONResponse):
    """A JSON response that never fails on stored text holding a lone surrogate: such
    content is written with ``\\uXXXX`` escapes (still valid JSON) instead of raising.

    Example:
        >>> SafeJSONResponse({"topic": "a \\ud800"}).body
        b'{"topic":"a \\\\ud800"}'
    """

    def render(self, content: Any) -> bytes:
        try:
            return super().render(content)
        except UnicodeEncodeError:
            return json.dumps(content, allow_nan=False, separators=(",", ":")).encode("ascii")
