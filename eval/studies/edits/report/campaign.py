"""An edit study's judged edits as a campaign manifest (``DIR/campaign.jsonl``), the input
``judge campaign create`` already reads: one line per task × writer × editor,
``{"prompt_id", "model", "image", "prompt", "source_image", "instruction"}`` — the editor as
the model, the edit the judge selected as the image (relative to the manifest), the source
picture (absolute) and the request. ``--kind rating`` makes edit ratings (source, edit and
instruction shown together) on a 1–5 criterion such as ``instruction_following``;
``--kind pairwise`` pairs the editors' edits of the same task and writer.

Example::

    path = write_campaign_manifest(Path("runs/edits"), lines, tasks_dir=Path("examples/edit_study"))
    # judge campaign create runs/edits/campaign.jsonl --id edits1 --kind rating \\
    #     --criterion instruction_following --url http://127.0.0.1:8080
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memory.io.atomic import write_atomic

JUDGED = ("scored", "partial")


def manifest_lines(lines: list[dict[str, Any]], tasks_dir: Path) -> list[dict[str, Any]]:
    """The manifest rows of the judged edits (edits never judged are left out)."""
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
            "source_image": str((tasks_dir / x["source_image"]).resolve()),
        })  # fmt: skip
    return rows


def write_campaign_manifest(folder: Path, lines: list[dict[str, Any]], tasks_dir: Path) -> Path:
    """Write ``folder/campaign.jsonl``; returns its path."""
    rows = manifest_lines(lines, tasks_dir)
    path = Path(folder) / "campaign.jsonl"
    write_atomic(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode())
    return path
