"""Text in images via RapidOCR (its ONNX models ship inside the wheel), loaded lazily.

Example::

    lines = read_text(Image.open("poster.png"))   # [("GRAND OPENING", 0.97), ...]
"""

from __future__ import annotations

import numpy as np
from PIL import Image

from skills.local.common import shared_model
from skills.local.content_memo import ContentMemo

MAX_SIDE = 1600


def _engine():
    from rapidocr_onnxruntime import RapidOCR

    return RapidOCR()


def read_text(image: Image.Image) -> list[tuple[str, float]]:
    """Recognised text lines with their confidence, top to bottom."""
    img = image.convert("RGB")
    if max(img.size) > MAX_SIDE:
        img = img.copy()
        img.thumbnail((MAX_SIDE, MAX_SIDE))
    engine = shared_model("rapidocr", _engine)
    result, _ = engine(np.asarray(img)[:, :, ::-1])  # the engine expects BGR like OpenCV
    if not result:
        return []
    return [(str(text), float(score)) for _, text, score in reading_order(result)]


def reading_order(boxes: list) -> list:
    """Boxes grouped into lines (vertical centres within half a box height), lines top to
    bottom, boxes left to right, so a slightly tilted line still reads in order."""

    def centre(b: list) -> float:
        return sum(p[1] for p in b[0]) / len(b[0])

    def height(b: list) -> float:
        ys = [p[1] for p in b[0]]
        return max(ys) - min(ys)

    lines: list[list] = []
    for box in sorted(boxes, key=centre):
        if (
            lines
            and abs(centre(box) - centre(lines[-1][-1]))
            <= max(height(box), height(lines[-1][-1])) / 2
        ):
            lines[-1].append(box)
        else:
            lines.append([box])
    return [b for line in lines for b in sorted(line, key=lambda b: min(p[0] for p in b[0]))]


_CACHE: ContentMemo[tuple[tuple[str, float], ...]] = ContentMemo(size=64)


def read_text_cached(sha256: str, image: Image.Image) -> tuple[tuple[str, float], ...]:
    """:func:`read_text` memoised by the image's content hash (one OCR pass per image)."""
    return _CACHE.get(sha256, lambda: tuple(read_text(image)))
