"""``text_rendering``: character accuracy of the requested text in the edited image (OCR).

Applies when the instruction quotes the text to show and a cue word (text, sign, says, …)
marks the quote as text (``rules.toml``); not when it asks to remove text. The edited
image is read with RapidOCR (the models of :mod:`skills.local.ocr`, its reading order; the
detector keeps inputs at most :data:`OCR_SIDE` px and never upsizes them, and the angle
classifier is skipped: requested text is upright). To save time
and to ignore text the source already had, OCR runs on the region that changed between
source and edit (:func:`changed_box`) and falls back to the whole edit when that region
holds no text.

Normalisation before comparing: Unicode NFKC, case folded, curly quotes and dashes made
ASCII, all whitespace removed (OCR splits and joins words unpredictably). Accuracy of one
requested string = 1 − (edit distance to the best-matching stretch of the OCR text) /
(its length), floored at 0; several strings are averaged weighted by length. So 1.0 is
every character right, and missing, extra or wrong characters each cost 1/length.

Example:
    >>> character_accuracy("OPEN LATE", ["0PEN", "LATE"])
    0.875
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import numpy as np
from PIL import Image

from skills.local.common import shared_model
from skills.local.ocr import reading_order
from skills.metrics.applicability import requested_text
from skills.metrics.registry import Metric, MetricOptions
from skills.metrics.types import ImagePair, MetricValue

OCR_SIDE = 960
DIFF_SIZE = 256
DIFF_THRESHOLD = 0.1
FULL_IMAGE_FRACTION = 0.6
_ASCII = str.maketrans(
    {"‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "—": "-", "«": '"', "»": '"'}
)


def normalise(text: str) -> str:
    """NFKC, case-folded, ASCII quotes and dashes, no whitespace."""
    text = unicodedata.normalize("NFKC", text).casefold().translate(_ASCII)
    return re.sub(r"\s+", "", text)


def best_substring_distance(needle: str, haystack: str) -> int:
    """Smallest edit distance between ``needle`` and any substring of ``haystack``."""
    prev = [0] * (len(haystack) + 1)  # a match may start anywhere: row 0 is free
    for i, ch in enumerate(needle, 1):
        cur = [i] + [0] * len(haystack)
        for j, hc in enumerate(haystack, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ch != hc))
        prev = cur
    return min(prev)


def character_accuracy(requested: str | list[str], lines: list[str]) -> float:
    """Length-weighted character accuracy of the requested string(s) in OCR ``lines``."""
    wanted = [normalise(t) for t in ([requested] if isinstance(requested, str) else requested)]
    wanted = [w for w in wanted if w]
    if not wanted:
        return 0.0
    hay = normalise("".join(lines))
    total = sum(len(w) for w in wanted)
    score = sum(max(0.0, 1 - best_substring_distance(w, hay) / len(w)) * len(w) for w in wanted)
    return round(score / total, 4)


def changed_box(source: Image.Image, edited: Image.Image) -> tuple[int, int, int, int] | None:
    """Bounding box (in ``edited`` pixels) of what changed, or ``None`` for the whole image."""
    from scipy import ndimage  # imported here: it is slow to import and only needed here

    w, h = edited.size
    scale = min(1.0, DIFF_SIZE / max(w, h))
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    a = np.asarray(source.convert("L").resize(size, Image.Resampling.BOX), np.float32) / 255
    b = np.asarray(edited.convert("L").resize(size, Image.Resampling.BOX), np.float32) / 255
    mask = ndimage.binary_opening(np.abs(a - b) > DIFF_THRESHOLD, iterations=1)
    if not mask.any():
        return None
    ys, xs = np.nonzero(mask)
    margin = max(4, round(0.05 * max(size)))
    x0, x1 = max(0, xs.min() - margin), min(size[0], xs.max() + 1 + margin)
    y0, y1 = max(0, ys.min() - margin), min(size[1], ys.max() + 1 + margin)
    if (x1 - x0) * (y1 - y0) > FULL_IMAGE_FRACTION * size[0] * size[1]:
        return None
    return (
        round(x0 / scale),
        round(y0 / scale),
        min(w, round(x1 / scale)),
        min(h, round(y1 / scale)),
    )


def _engine() -> Any:
    from rapidocr_onnxruntime import RapidOCR

    # "max" keeps small crops at their size (RapidOCR's default upsizes the shorter side to 736)
    return RapidOCR(det_limit_side_len=OCR_SIDE, det_limit_type="max")


def ocr_lines(image: Image.Image) -> list[str]:
    """OCR text lines of ``image`` in reading order (RapidOCR, no angle classifier)."""
    engine = shared_model("metrics:rapidocr", _engine)
    result, _ = engine(np.asarray(image.convert("RGB"))[:, :, ::-1], use_cls=False)
    return [str(text) for _, text, _ in reading_order(result or [])]


class TextRendering(Metric):
    """OCR character accuracy of the quoted text the instruction asks for."""

    name = "text_rendering"
    direction = "0–1, larger = the requested text is rendered more exactly"
    order = 4

    def applicability(self, instruction: str) -> tuple[bool, str | None, dict[str, Any]]:
        ok, reason, _ = super().applicability(instruction)
        if not ok:
            return ok, reason, {}
        wanted = requested_text(instruction)
        if not wanted:
            return False, "the instruction asks for no quoted text to render", {}
        return True, None, {"requested_text": wanted}

    def compute(
        self, pair: ImagePair, options: MetricOptions, facts: dict[str, Any]
    ) -> MetricValue:
        wanted = facts.get("requested_text") or []
        if not wanted:
            return MetricValue.not_applicable("no requested text was given")
        box = changed_box(pair.source, pair.edited)
        lines = ocr_lines(pair.edited.crop(box)) if box else []
        region = "changed region" if box and lines else "whole image"
        if not lines:
            lines = ocr_lines(pair.edited)
        return MetricValue(
            value=character_accuracy(wanted, lines),
            details={
                "requested_text": wanted,
                "ocr_text": lines,
                "ocr_region": region,
                "box": list(box) if box and region == "changed region" else None,
                "normalisation": "NFKC, case-folded, ASCII quotes/dashes, whitespace removed",
            },
        )
