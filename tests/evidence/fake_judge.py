"""A scripted judge for the docs walk: it grades an image by its size, so the backend that
draws larger images wins by construction (the model name tells judge calls from the
from-posts stages)."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

from PIL import Image

from tests.fakes.provider.responder import default_answer

JUDGE = "fake-judge"
LARGE = 256
"""Images at least this wide get the top grade, smaller ones one less."""


def is_judge_call(body: dict[str, Any]) -> bool:
    """A call the study's judge makes (not a from-posts stage)."""
    return JUDGE in str(body.get("model", "")) and "response_format" in body


def image_widths(body: dict[str, Any]) -> list[int]:
    """The widths of the images a call carries, decoded from their data URLs."""
    widths = []
    for m in body.get("messages") or []:
        for p in m.get("content") if isinstance(m.get("content"), list) else []:
            if isinstance(p, dict) and p.get("type") == "image_url":
                raw = base64.b64decode(p["image_url"]["url"].partition(",")[2])
                with Image.open(io.BytesIO(raw)) as img:
                    widths.append(img.width)
    return widths


def _regrade(value: Any, grade: int) -> Any:
    if isinstance(value, dict):
        return {k: grade if k == "score" and isinstance(v, int) else _regrade(v, grade)
                for k, v in value.items()}
    if isinstance(value, list):
        return [_regrade(v, grade) for v in value]
    return value


def size_judge(body: dict[str, Any]) -> dict[str, Any]:
    """A schema-valid answer whose every integer ``score`` is 5 for a large image, 4 for a
    small one (calls without an image keep the default answer)."""
    answer = json.loads(default_answer(body))
    widths = image_widths(body)
    if not widths:
        return answer
    return _regrade(answer, 5 if min(widths) >= LARGE else 4)
