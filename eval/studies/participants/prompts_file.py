"""Writing exported prompts as the files a study's ``human`` prompters read.

One combined file keeps a ``participant`` field on every line (the runner reads only
``task_id`` and ``prompt``, so it is usable as a prompter's file when it holds one
participant). ``per_participant`` writes ``<dir>/<code>.jsonl`` with one line per task.

Example:
    >>> import tempfile, pathlib
    >>> rows = [{"task_id": "oe_1", "prompt": "a quiet harbour", "participant": "AB12",
    ...          "submitted_at": "2026-01-01T00:00:00Z"}]
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> [p.name for p in write_per_participant(rows, out)]
    ['AB12.jsonl']
    >>> (out / "AB12.jsonl").read_text()
    '{"task_id": "oe_1", "prompt": "a quiet harbour"}\\n'
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memory.io.atomic import write_atomic


def _write(path: Path, rows: list[dict[str, Any]]) -> None:
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    write_atomic(path, text)  # never a half-written prompts file


def write_combined(rows: list[dict[str, Any]], path: Path) -> Path:
    """All prompts, ``{"task_id", "prompt", "participant"}`` per line."""
    keep = [
        {"task_id": r["task_id"], "prompt": r["prompt"], "participant": r["participant"]}
        for r in rows
    ]
    _write(path, keep)
    return path


def write_per_participant(rows: list[dict[str, Any]], folder: Path) -> list[Path]:
    """One ``{"task_id", "prompt"}`` file per participant, named by the code."""
    by: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault(r["participant"], []).append({"task_id": r["task_id"], "prompt": r["prompt"]})
    paths = []
    for code, items in sorted(by.items()):
        _write(folder / f"{code}.jsonl", items)
        paths.append(folder / f"{code}.jsonl")
    return paths
