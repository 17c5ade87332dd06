"""Reading JSON-lines files: one value per line, every error numbered.

The policy for bad lines, the same for every JSONL file the product reads:

- blank lines (only whitespace) are skipped;
- a line that is not valid JSON is an error naming the file and the line,
  ``FILE:LINE: not valid JSON (…)``; it is never skipped silently;
- with ``objects=True`` a line that is JSON but not an object is an error too;
- one exception, for files a run appends to: with ``torn_tail=True`` a last line without a
  line end that is not valid JSON (a write cut short by a crash) is left out, and
  :attr:`JsonLines.torn` gives its number, so the caller may say so. A bad line anywhere else
  is still an error.

Lines end at ``\n`` only (``\r\n`` works too): a JSON string may hold U+2028 or other
characters that :meth:`str.splitlines` would break on.

Errors are :class:`JsonlError` (a ``ValueError``) carrying ``source``, ``line`` and
``problem``; a caller with its own error type passes it as ``error`` and gets that type,
with the same message. What a
valid line means (fields, types, duplicates) is the caller's, who names the line with
:func:`where`.

Example:
    >>> read = parse_jsonl('{"a": 1}\\n\\n{"a": 2}\\n', "votes.jsonl")
    >>> [(n, row["a"]) for n, row in read]
    [(1, 1), (3, 2)]
    >>> parse_jsonl('{"a": 1}\\n[1,\\n', "votes.jsonl")
    Traceback (most recent call last):
    ...
    memory.io.jsonl.JsonlError: votes.jsonl:2: not valid JSON (Expecting value)
    >>> parse_jsonl('{"a": 1}\\n{"a": 2}', "run.jsonl", torn_tail=True).torn is None
    True
    >>> parse_jsonl('{"a": 1}\\n{"a": ', "run.jsonl", torn_tail=True).torn
    2
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path  # noqa: F401 (the doctests use it)
from typing import Any

from memory.io.utf8 import NotUtf8, read_utf8

__all__ = ["TOO_DEEP", "JsonLines", "JsonlError", "parse_jsonl", "read_jsonl", "where"]

TOO_DEEP = "JSON nested too deeply to read (thousands of levels of [ or {); not a data file"


def where(source: str | os.PathLike[str], line: int) -> str:
    """``FILE:LINE``, how every message about one line of a file begins.

    >>> where(Path("d/votes.jsonl"), 7)
    'd/votes.jsonl:7'
    """
    return f"{os.fspath(source)}:{line}"


class JsonlError(ValueError):
    """One bad line of a JSON-lines file: ``FILE:LINE: problem``."""

    def __init__(self, source: str | os.PathLike[str], line: int, problem: str):
        super().__init__(f"{where(source, line)}: {problem}")
        self.source, self.line, self.problem = os.fspath(source), line, problem


class JsonLines(list[tuple[int, Any]]):
    """``(line number, value)`` of every non-blank line; ``torn``, the number of a torn last
    line that was left out (only with ``torn_tail=True``), else ``None``."""

    torn: int | None = None


def parse_jsonl(
    text: str | Sequence[str],
    source: str | os.PathLike[str],
    *,
    objects: bool = False,
    torn_tail: bool = False,
    error: Callable[[str], Exception] | None = None,
) -> JsonLines:
    """The lines of ``text`` (a file's text, or its lines already split; read from
    ``source``, which errors name), by the policy above; ``error(message)`` is raised
    instead of :class:`JsonlError` when given.

    >>> class VotesError(ValueError): ...
    >>> parse_jsonl("[1]", "v.jsonl", objects=True, error=VotesError)
    Traceback (most recent call last):
    ...
    memory.io.jsonl.VotesError: v.jsonl:1: expected a JSON object, got list
    """
    try:
        return _parse(text, source, objects, torn_tail)
    except JsonlError as exc:
        if error is None:
            raise
        raise error(str(exc)) from None


def _parse(
    text: str | Sequence[str], source: str | os.PathLike[str], objects: bool, torn_tail: bool
) -> JsonLines:
    out = JsonLines()
    lines: Sequence[str]
    if isinstance(text, str):
        split = text.split("\n")
        ends_whole = split[-1] == ""
        lines = split[:-1] if ends_whole else split
    else:
        lines, ends_whole = text, True
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except RecursionError:
            raise JsonlError(source, n, TOO_DEEP) from None
        except json.JSONDecodeError as exc:
            if torn_tail and n == len(lines) and not ends_whole:
                out.torn = n
                break
            raise JsonlError(source, n, f"not valid JSON ({exc.msg})") from None
        if objects and not isinstance(value, dict):
            raise JsonlError(source, n, f"expected a JSON object, got {type(value).__name__}")
        out.append((n, value))
    return out


def read_jsonl(
    path: str | os.PathLike[str],
    *,
    objects: bool = False,
    torn_tail: bool = False,
    error: Callable[[str], Exception] | None = None,
) -> JsonLines:
    """:func:`parse_jsonl` of a UTF-8 file (``OSError`` when it cannot be read; a file that
    is not UTF-8 is an error naming it and the line, as a bad line is)."""
    try:
        text = read_utf8(path)
    except NotUtf8 as exc:
        if error is not None:
            raise error(str(exc)) from None
        raise JsonlError(path, exc.line, exc.problem) from None
    return parse_jsonl(text, path, objects=objects, torn_tail=torn_tail, error=error)
