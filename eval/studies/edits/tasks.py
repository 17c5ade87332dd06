"""The edit tasks of an edit study, from any of three files (the format is told by the file):

- ``*.jsonl`` written by ``judge tasks edits``: ``{"id", "instruction", "source_image",
  "category", "edit_type"}`` per line (``mask`` optional);
- ``suite.i2i.jsonl`` written by ``judge tasks from-posts``: suite tasks whose ``brief`` is
  the request and ``source_image`` the input (category ``OE``, family from ``tags.topic``);
- a user's ``*.csv`` with a header ``image, instruction`` (``id``, ``category``,
  ``edit_type``, ``mask`` optional).

Image paths are relative to the task file. Every bad line is reported as
``FILE:LINE: field: problem``, all at once.

Example:
    >>> import tempfile, io
    >>> from PIL import Image
    >>> d = Path(tempfile.mkdtemp()); Image.new("RGB", (8, 8)).save(d / "a.png")
    >>> _ = (d / "t.csv").write_text("image,instruction\\na.png,Make the sky pink.\\n")
    >>> t = load_edit_tasks(d / "t.csv")[0]
    >>> t.id, t.category, t.family
    ('a-1', 'unlabelled', 'unlabelled')
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from eval.studies.suite import SuiteError

UNLABELLED = "unlabelled"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
MAX_TASK_FILE_BYTES = 64 * 1024 * 1024


class EditTask(BaseModel):
    """One edit to ask every editor for. ``source_image``/``mask`` are paths relative to the
    task file; ``category`` is the image's category, ``family`` the kind of edit."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    request: str = Field(min_length=1, max_length=4000)
    source_image: str
    mask: str | None = None
    category: str = UNLABELLED
    family: str = UNLABELLED


def _from_json(row: dict[str, Any]) -> dict[str, Any]:
    if "brief" in row:  # a suite task (from-posts' image-to-image split)
        given = row.get("tags")
        tags = given if isinstance(given, dict) else {}
        return {"id": row.get("id"), "request": row.get("brief"),
                "source_image": row.get("source_image"), "mask": row.get("mask"),
                "category": str(row.get("category") or UNLABELLED),
                "family": str(tags.get("topic") or UNLABELLED)}  # fmt: skip
    return {"id": row.get("id"), "request": row.get("instruction"),
            "source_image": row.get("source_image"), "mask": row.get("mask"),
            "category": row.get("category") or UNLABELLED,
            "family": row.get("edit_type") or UNLABELLED}  # fmt: skip


def _from_csv(row: dict[str, str | None], line: int) -> dict[str, Any]:
    def cell(name: str) -> str:
        return (row.get(name) or "").strip()

    image = cell("image")
    return {
        "id": cell("id") or f"{Path(image).stem}-{line - 1}",
        "request": cell("instruction"),
        "source_image": image,
        "mask": cell("mask") or None,
        "category": cell("category") or UNLABELLED,
        "family": cell("edit_type") or UNLABELLED,
    }


def _rows(path: Path) -> list[tuple[int, dict[str, Any] | str]]:
    """``(line, fields)`` per task, or ``(line, problem)`` for a line that is not one."""
    if path.stat().st_size > MAX_TASK_FILE_BYTES:
        return [(0, f"the file is larger than {MAX_TASK_FILE_BYTES} bytes")]
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(text.splitlines())
        missing = [c for c in ("image", "instruction") if c not in (reader.fieldnames or [])]
        if missing:
            return [(1, f"header: missing column(s) {', '.join(missing)}")]
        out: list[tuple[int, dict[str, Any] | str]] = []
        for n, row in enumerate(reader, start=2):
            out.append((n, _from_csv(row, n)))
        return out
    rows: list[tuple[int, dict[str, Any] | str]] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            rows.append((n, f"not valid JSON ({exc.msg})"))
            continue
        rows.append((n, _from_json(row) if isinstance(row, dict) else "expected a JSON object"))
    return rows


def _check(fields: dict[str, Any], base: Path) -> str | None:
    tid = fields.get("id")
    if not isinstance(tid, str) or not _ID.match(tid):
        return f"id: {tid!r} is not an id (1-128 letters, digits, '_', '-', '.')"
    request = fields.get("request")
    if not isinstance(request, str) or len(request.strip()) < 3:
        return "instruction: empty or too short"
    for key in ("source_image", "mask"):
        value = fields.get(key)
        if value is None and key == "mask":
            continue
        if not isinstance(value, str) or not value:
            return f"{key}: missing (a path relative to the task file)"
        if not (base / value).is_file():
            return f"{key}: no such file {str(base / value)!r}"
    return None


def load_edit_tasks(path: Path) -> list[EditTask]:
    """The tasks of ``path`` (JSONL or CSV); :class:`~eval.studies.suite.SuiteError` lists
    every bad line as ``FILE:LINE: field: problem``."""
    path = Path(path)
    try:
        rows = _rows(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError([f"{path}: cannot read ({exc})"]) from None
    base = path.parent
    tasks: list[EditTask] = []
    errors: list[str] = []
    seen: set[str] = set()
    for n, fields in rows:
        where = f"{path}:{n}"
        if isinstance(fields, str):
            errors.append(f"{where}: {fields}")
            continue
        problem = _check(fields, base)
        if problem is None and fields["id"] in seen:
            problem = f"id: {fields['id']!r} is used twice"
        if problem is not None:
            errors.append(f"{where}: {problem}")
            continue
        seen.add(fields["id"])
        tasks.append(EditTask.model_validate({**fields, "request": fields["request"].strip()}))
    if errors:
        raise SuiteError(errors)
    return tasks
