"""An edit study's judged edits as a campaign manifest (``DIR/campaign.jsonl``), the input
``judge campaign create`` already reads: one line per task × writer × editor,
``{"prompt_id", "model", "image", "prompt", "source_image", "instruction"}`` — the editor as
the model, the edit the judge selected as the image and a copy of the source picture under
``DIR/sources/`` (both relative to the manifest: ``judge campaign create`` reads no image
outside the manifest's folder), and the request. ``--kind rating`` makes edit ratings
(source, edit and instruction shown together) on a 1–5 criterion such as
``instruction_following``;
``--kind pairwise`` pairs the editors' edits of the same task and writer.

Example::

    path = write_campaign_manifest(Path("runs/edits"), lines, tasks_dir=Path("examples/edit_study"))
    # judge campaign create runs/edits/campaign.jsonl --id edits1 --kind rating \\
    #     --criterion instruction_following --url http://127.0.0.1:8080
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from memory.io.atomic import write_atomic

JUDGED = ("scored", "partial")


def copy_source(folder: Path, source: Path) -> str:
    """``source`` copied into ``folder/sources/`` under a name taken from its content (one
    copy per picture however many rows show it); the copy's path relative to ``folder``."""
    data = source.read_bytes()
    name = f"{hashlib.sha256(data).hexdigest()[:16]}{source.suffix.lower()}"
    target = folder / "sources" / name
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    return f"sources/{name}"


def manifest_lines(
    lines: list[dict[str, Any]], tasks_dir: Path, folder: Path
) -> list[dict[str, Any]]:
    """The manifest rows of the judged edits (edits never judged are left out); the source
    pictures are copied into ``folder/sources/``."""
    rows = []
    for x in lines:
        if x.get("status") not in JUDGED or not x.get("images"):
            continue
        pick = x.get("selected_image") or 0
        rows.append({
            "prompt_id": f"{x['task_id']}.{x['writer']}",
            "model": x["editor"],
            "image": x["images"][min(pick, len(x["images"]) - 1)],
            "prompt": x.get("request"),
            "instruction": x.get("request"),
            "source_image": copy_source(folder, tasks_dir / x["source_image"]),
        })  # fmt: skip
    return rows


def write_campaign_manifest(folder: Path, lines: list[dict[str, Any]], tasks_dir: Path) -> Path:
    """Write ``folder/campaign.jsonl``; returns its path."""
    rows = manifest_lines(lines, tasks_dir, Path(folder))
    path = Path(folder) / "campaign.jsonl"
    write_atomic(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode())
    return path
