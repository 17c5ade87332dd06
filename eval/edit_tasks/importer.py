"""Hand-written edit instructions from a CSV, into the edit-task format; and the CSV of
image categories a user may supply instead of the classifier.

The instruction CSV has a header with ``image, instruction, category, edit_type`` (``id``
optional); ``image`` is a path relative to the CSV. Every bad row is reported as
``FILE:LINE: field: problem``, all at once.

Example:
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "a.png").write_bytes(b"x")
    >>> _ = (d / "e.csv").write_text("image,instruction,category,edit_type\\n"
    ...                              "a.png,Remove the cup.,objects,remove_object\\n")
    >>> import_csv(d / "e.csv", d / "out.jsonl")[0]["id"]
    'a-remove_object'
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

from eval.edit_tasks.cards import load_categories
from eval.edit_tasks.generate import task_id


class ImportError_(ValueError):
    """Rows that cannot be imported; ``errors`` lists each ``FILE:LINE: field: problem``."""

    def __init__(self, errors: list[str]):
        self.errors = errors
        super().__init__("\n".join(errors))


def _rows(path: Path, required: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            missing = [c for c in required if c not in (reader.fieldnames or [])]
            if missing:
                raise ImportError_([f"{path}:1: header: missing column(s) {missing}"])
            return [(reader.line_num, row) for row in reader]
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportError_([f"{path}: cannot read ({exc})"]) from None


def read_categories(path: Path) -> dict[str, str]:
    """``image file name -> category`` from a CSV with ``image, category`` columns."""
    return {Path(r["image"]).name: r["category"].strip()
            for _, r in _rows(path, ("image", "category"))}


def import_csv(path: Path, out: Path, types_dir: Path | None = None) -> list[dict[str, str]]:
    """Edit tasks from hand-written rows (``source_image`` relative to ``out``'s folder)."""
    cards = load_categories(types_dir)
    tasks: list[dict[str, str]] = []
    errors: list[str] = []
    ids: set[str] = set()
    for n, row in _rows(path, ("image", "instruction", "category", "edit_type")):
        where = f"{path}:{n}"
        image = path.parent / (row.get("image") or "").strip()
        cat, etype = (row.get("category") or "").strip(), (row.get("edit_type") or "").strip()
        text = (row.get("instruction") or "").strip()
        if not row.get("image") or not image.is_file():
            errors.append(f"{where}: image: no such file {str(image)!r}")
        elif len(text) < 5:
            errors.append(f"{where}: instruction: empty or too short")
        elif cat not in cards:
            errors.append(f"{where}: category: unknown {cat!r}; known: {sorted(cards)}")
        elif etype not in cards[cat].types:
            errors.append(f"{where}: edit_type: {etype!r} is not a type of {cat}; "
                          f"its types: {sorted(cards[cat].types)}")
        else:
            tid = (row.get("id") or "").strip() or task_id(image, etype)
            if tid in ids:
                errors.append(f"{where}: id: {tid!r} is used twice")
                continue
            ids.add(tid)
            rel = Path(os.path.relpath(image.resolve(), out.parent.resolve())).as_posix()
            tasks.append({"id": tid, "instruction": text, "source_image": rel,
                          "category": cat, "edit_type": etype})
    if errors:
        raise ImportError_(errors)
    return tasks
