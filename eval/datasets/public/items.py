"""The submissions the public sets' items carry: one image of a prompt (score mode) or two
images of a prompt on one criterion (compare mode), in the shape the judge reads.

Example:
    >>> image_submission("x1", "p1", "a red cube", "/data/x1.png")["task"]["category"]
    'OE'
    >>> pair = compare_submission("p:0-1", "a cube", ("/a.png", "m0"), ("/b.png", "m1"), "x")
    >>> pair["b"]
    {'image': '/b.png', 'model': 'm1'}
"""

from __future__ import annotations

from typing import Any


def image_submission(
    item_id: str,
    task_id: str,
    prompt: str,
    image: str,
    backend: str | None = None,
    checklist: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A score-mode submission of one image; the prompt is also the task's brief."""
    out: dict[str, Any] = {
        "id": item_id,
        "task": {"id": task_id, "category": "OE", "brief": prompt, "checklist": checklist or []},
        "prompt": prompt,
        "images": [image],
    }
    if backend is not None:
        out["backend"] = backend
    return out


def compare_submission(
    item_id: str, prompt: str, a: tuple[str, str], b: tuple[str, str], criterion: str
) -> dict[str, Any]:
    """A compare-mode submission; ``a`` and ``b`` are (image, model) of the two sides."""
    return {
        "mode": "compare",
        "id": item_id,
        "prompt": prompt,
        "a": {"image": a[0], "model": a[1]},
        "b": {"image": b[0], "model": b[1]},
        "criteria": [criterion],
    }
