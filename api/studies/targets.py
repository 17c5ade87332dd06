"""IM target images of a study: resolved from the registration, vetted, kept as bytes.

A task's ``target_image`` is a ``data:`` URL, or a name looked up in the request's ``targets``
map. Each image is size- and pixel-checked like a submission image (the engine's limits);
the stored task keeps only a flag, never a server path.

Example::

    images = target_images(tasks, body.targets, judge.settings)   # {task_id: (bytes, mime)}
"""

from __future__ import annotations

import io
from typing import Any

from PIL import Image

from judge.config import JudgeSettings
from judge.errors import InputError
from judge.io.images import decode_image, read_image_bytes
from judge.io.pixel_budget import pixel_ledger

MIME = {
    "PNG": "image/png",
    "JPEG": "image/jpeg",
    "WEBP": "image/webp",
    "GIF": "image/gif",
    "BMP": "image/bmp",
}


def target_images(
    tasks: list[dict[str, Any]], targets: dict[str, str], settings: JudgeSettings
) -> dict[str, tuple[bytes, str]]:
    """``{task_id: (bytes, mime type)}`` for every task with a target image; ``tasks`` get
    ``target_image`` replaced by ``True`` (served by the study's page)."""
    out: dict[str, tuple[bytes, str]] = {}
    used: set[str] = set()
    for i, task in enumerate(tasks):
        ref = task.get("target_image")
        if not ref:
            continue
        field = f"tasks[{i}].target_image"
        if not ref.startswith("data:"):
            if ref not in targets:
                raise InputError(
                    field,
                    f"{ref[:80]!r} is neither a data: URL nor a key of 'targets'; send the "
                    "image as targets[<that name>] = data: URL",
                )
            used.add(ref)
            field, ref = f"targets[{ref[:80]!r}]", targets[ref]
            if not isinstance(ref, str) or not ref.startswith("data:"):
                raise InputError(field, "expected a data: URL")
        with pixel_ledger(settings.image_max_pixels, None):
            raw = read_image_bytes(ref, field=field, settings=settings)
            decode_image(raw, field=field, settings=settings)
        with Image.open(io.BytesIO(raw)) as probe:  # header only: the format for Content-Type
            mime = MIME.get(probe.format or "", "application/octet-stream")
        out[task["id"]] = (raw, mime)
        task["target_image"] = True
    unused = sorted(set(targets) - used)
    if unused:
        raise InputError(f"targets[{unused[0][:80]!r}]", "no task names this target image")
    return out
