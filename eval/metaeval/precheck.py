"""Check every item's images before a meta-evaluation scores anything or builds a memory.

One missing or unreadable image must not end a run: the item is named (``labels.csv line 7``),
left out of the memory, written to ``predictions.jsonl`` unscored with its reason, and the
run goes on with the others.

Example:
    >>> from pathlib import Path
    >>> from eval.datasets.base import EvalItem
    >>> item = EvalItem("a", {"images": ["nope.png"]}, Path("/nonexistent"), where="t.csv line 2")
    >>> unreadable([item])["a"]
    "t.csv line 2: image 'nope.png': cannot read image (No such file or directory)"
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tqdm import tqdm

from eval.datasets.base import EvalItem
from memory.exemplar import ExemplarError, ExemplarRecord
from memory.memory import open_image

REMOTE = ("http://", "https://", "data:")


def image_problem(ref: str, base_dir: Path) -> str | None:
    """Why the image ``ref`` (a path, relative to ``base_dir``) cannot be used, or None."""
    if not isinstance(ref, str) or not ref or "\x00" in ref:
        return f"image {ref!r} is not a file path"
    if ref.startswith(REMOTE):
        return None  # read by the judge itself; its errors are per item already
    path = Path(ref)
    path = path if path.is_absolute() else base_dir / path
    try:
        open_image(path, f"image {ref!r}")
    except ExemplarError as exc:
        return str(exc)
    except (OSError, ValueError) as exc:
        return f"image {ref!r}: cannot read image ({type(exc).__name__})"
    return None


def unreadable(items: Iterable[EvalItem], *, progress: bool = False) -> dict[str, str]:
    """Item id → why one of its images cannot be read (items that can are left out)."""
    items = list(items)
    bad: dict[str, str] = {}
    for item in tqdm(items, desc="checking images", unit="item", disable=not progress):
        for ref in item.submission.get("images") or []:
            why = image_problem(ref, item.base_dir)
            if why is not None:
                bad[item.id] = f"{item.where or f'item {item.id!r}'}: {why}"
                break
    return bad


def usable_records(
    records: list[ExemplarRecord], base: Path, where: dict[str, str]
) -> tuple[list[ExemplarRecord], list[str]]:
    """The memory records whose image can be read, and a line naming each one left out
    (``where``: record id → its place in the labels file)."""
    keep, dropped = [], []
    for rec in records:
        why = image_problem(rec.image, base) if rec.modality == "image" and rec.image else None
        if why is None:
            keep.append(rec)
        else:
            dropped.append(f"{where.get(rec.id) or f'exemplar {rec.id!r}'}: {why}")
    return keep, dropped


def unscored_row(item: EvalItem, reason: str) -> dict[str, Any]:
    """The prediction line of an item left out, as a failed item's line (``error``: the run
    after the file is fixed scores it, like any failed item) marked ``status: skipped``."""
    return {**item.key, "id": item.id, "error": reason, "status": "skipped"}
