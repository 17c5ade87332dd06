"""Results files for ``judge trust``: JSON lines of results (or a batch's ``{"index", "result"}``
lines) read with every problem named by file and line, and written whole or not at all.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.jsonl"
    >>> text = '{"submission_id": "s1"}\\n{"index": 0, "result": {"submission_id": "s2"}}\\n'
    >>> _ = p.write_text(text)
    >>> lines = read_results(p)
    >>> [result_id(unwrap(x)) for x in lines]
    ['s1', 's2']
    >>> write_lines(p.with_name("out.jsonl"), lines); p.with_name("out.jsonl").is_file()
    True
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from judge.trust.errors import TrustError
from judge.trust.items import result_id, unwrap
from memory.io.atomic import write_atomic
from memory.io.jsonl import read_jsonl, where


def read_results(path: str | Path) -> list[dict[str, Any]]:
    """Every line of a results file, checked: an object with a result id, ids unique."""
    path = Path(path)
    if not path.is_file():
        raise TrustError(f"{path}: no such results file")
    lines: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for n, line in read_jsonl(path, error=TrustError):
        at = where(path, n)
        try:
            rid = result_id(unwrap(line))
        except TrustError as exc:
            raise TrustError(f"{at}: {exc}") from None
        if rid in seen:
            raise TrustError(f"{at}: {rid!r} appears twice (first at line {seen[rid]})")
        seen[rid] = n
        lines.append(line)
    if not lines:
        raise TrustError(f"{path}: no results in the file")
    return lines


def rewrap(line: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """``result`` in the shape of ``line`` (a batch line keeps its other fields)."""
    if line is not unwrap(line):
        return {**line, "result": result}
    return result


def write_lines(path: str | Path, lines: list[dict[str, Any]]) -> None:
    """Write JSON lines atomically (the old file stays until the new one is complete)."""
    text = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines)
    write_atomic(Path(path), text)
