"""Where each scalar value of a JSON text starts: the bridge from a reply's tokens to the
fields of its answer (``logprobs`` confidence).

Example:
    >>> text = '{"rationale": "say \\\\"verdict\\\\": no", "verdict": true}'
    >>> [(p, text[i:i + 4]) for p, i in leaf_offsets(text) if p[-1] == "verdict"]
    [(('verdict',), 'true')]
    >>> leaf_offsets('{"results": [{"id": "k1", "verdict": false}]}')[1]
    (('results', 0, 'verdict'), 37)
"""

from __future__ import annotations

import json

Path = tuple[str | int, ...]
_DECODER = json.JSONDecoder()
_SPACE = " \t\r\n"


def leaf_offsets(text: str) -> list[tuple[Path, int]]:
    """``(path, offset)`` of every scalar in the first JSON value of ``text``, in order
    (an empty list for text that is not JSON)."""
    start = text.find("{")
    out: list[tuple[Path, int]] = []
    if start < 0:
        return out
    try:
        _walk(text, start, (), out)
    except (ValueError, IndexError):
        return []
    return out


def _skip(text: str, i: int) -> int:
    while text[i] in _SPACE:
        i += 1
    return i


def _walk(text: str, i: int, path: Path, out: list[tuple[Path, int]]) -> int:
    """Read the value at ``i`` (recording its scalars); the offset after it."""
    i = _skip(text, i)
    ch = text[i]
    if ch == "{":
        i = _skip(text, i + 1)
        if text[i] == "}":
            return i + 1
        while True:
            key, i = _DECODER.raw_decode(text, _skip(text, i))
            i = _skip(text, i)
            if text[i] != ":":
                raise ValueError("expected ':'")
            i = _skip(text, _walk(text, i + 1, (*path, str(key)), out))
            if text[i] == "}":
                return i + 1
            if text[i] != ",":
                raise ValueError("expected ',' or '}'")
            i += 1
    if ch == "[":
        i = _skip(text, i + 1)
        if text[i] == "]":
            return i + 1
        n = 0
        while True:
            i = _skip(text, _walk(text, i, (*path, n), out))
            n += 1
            if text[i] == "]":
                return i + 1
            if text[i] != ",":
                raise ValueError("expected ',' or ']'")
            i += 1
    out.append((path, i))
    _, end = _DECODER.raw_decode(text, i)
    return end
