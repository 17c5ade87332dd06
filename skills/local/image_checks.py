"""The local image-check strategies, in the order they are tried: quoted text (OCR), colour
palettes (pixel naming), then claims about COCO objects (the YOLOv3-tiny detector).

Example:
    >>> list(strategies())
    ['ocr-text', 'palette', 'coco-objects']
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

from skills.local import NEEDS_VLM
from skills.local.check_strategies import Strategy, register_strategy, strategies
from skills.local.common import payload_image
from skills.local.detector import DetectorUnavailable, detect_cached
from skills.local.object_claims import Claim, parse
from skills.local.object_verdicts import decide
from skills.local.ocr import read_text_cached
from skills.local.palette import decide_palette, parse_palette
from skills.local.prompt_rules import MATCH
from skills.local.textmatch import contains_fuzzy, quoted
from skills.types import Cause, CheckSpec, ImagePayload, VerdictValue

__all__ = ["strategies"]

C = TypeVar("C")


def _value(verdict: bool | None, why: str) -> VerdictValue:
    if verdict is None:
        return VerdictValue.unscored(Cause.NO_MODEL, f"{why}; {NEEDS_VLM}")
    return VerdictValue(verdict=verdict, rationale=why)


@register_strategy("ocr-text")
def ocr_text(check: CheckSpec, image: ImagePayload) -> VerdictValue | None:
    """Checkpoints quoting exact text: OCR the image and fuzzy-match the quotes."""
    quotes, mode = quoted(check.text)
    if not quotes:
        return None
    lines = read_text_cached(image.sha256, payload_image(image))
    text = " ".join(t for t, _ in lines)
    scores = [contains_fuzzy(text, q) for q in quotes]
    hits = [s >= MATCH for s in scores]
    ok = any(hits) if mode == "any" else all(hits)
    seen = f"OCR read {text[:160]!r}" if text else "OCR found no text"
    shown = ", ".join(f"'{q}' ({s:.2f})" for q, s in zip(quotes, scores, strict=True))
    return VerdictValue(verdict=ok, rationale=f"{seen}; {mode} of {shown} (threshold {MATCH})")


def _claims(
    read: Callable[[str], C | None],
) -> Callable[[Callable[[C, ImagePayload], VerdictValue]], Strategy]:
    """A strategy from a decision on what ``read`` finds in a checkpoint's text: it passes on
    checkpoints of the ``text`` primitive and on those whose text ``read`` cannot parse."""

    def wrap(decide_claim: Callable[[C, ImagePayload], VerdictValue]) -> Strategy:
        @functools.wraps(decide_claim)
        def strategy(check: CheckSpec, image: ImagePayload) -> VerdictValue | None:
            if check.primitive == "text":
                return None
            claim = read(check.text)
            return None if claim is None else decide_claim(claim, image)

        return strategy

    return wrap


@register_strategy("palette")
@_claims(parse_palette)
def palette(allowed: tuple[str, ...], image: ImagePayload) -> VerdictValue:
    """ "Only these colours are used" checkpoints, by naming every pixel's colour."""
    return _value(*decide_palette(allowed, payload_image(image)))


@register_strategy("coco-objects")
@_claims(parse)
def coco_objects(claim: Claim, image: ImagePayload) -> VerdictValue:
    """Presence, counts, relations and colours of COCO objects, by the packaged detector."""
    img = payload_image(image)
    try:
        dets = list(detect_cached(image.sha256, img))
    except DetectorUnavailable as exc:
        return VerdictValue.unscored(
            Cause.NO_MODEL, f"object detector unavailable: {exc}; {NEEDS_VLM}"
        )
    return _value(*decide(claim, dets, img))
