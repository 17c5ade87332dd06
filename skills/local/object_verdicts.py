"""Deciding a parsed object claim from detections, conservatively.

A detection counts when its confidence is at least :data:`CONFIDENT`; one between the
detector's floor and that is *borderline*. The small detector misses objects far more often
than it invents them, so absence alone never decides anything:

- presence: true when every named class has a box of at least :data:`PRESENT` (a single
  box is all the evidence, so the bar is higher); a negated presence ("no dogs") is false
  on such a box; otherwise unscored;
- counts (1–:data:`MAX_COUNT`): ``exactly n`` true when exactly n confident boxes and no
  borderline or nested boxes of that class, false when more than n distinct confident boxes
  (a box mostly inside another of its class is the same object); ``at least n`` true when n
  or more (for n = 1 the presence bar applies); ``at most n`` false when more; several
  counts are a conjunction;
- relations: exactly one confident box of each class (different classes, nothing
  borderline); box centres must differ by :data:`MARGIN` of the image in the claimed
  direction (true) or the opposite one (false); ``next to`` is only ever confirmed;
- colours: exactly one confident box; the claimed colour must cover :data:`COLOUR_TRUE` of
  the box centre with a related colour on top (black, white and grey, which shading makes
  on any object, need :data:`ACHROMATIC_TRUE` and almost no hued pixels), or be nearly
  absent under a dominant unrelated colour (false); see
  :func:`skills.local.colours.box_colours`.

Example:
    >>> from skills.local.detector import Detection
    >>> from skills.local.object_claims import parse
    >>> d = [Detection("dog", 0.9, 0.1, 0.4, 0.3, 0.8), Detection("cat", 0.8, 0.6, 0.4, 0.9, 0.8)]
    >>> decide(parse("The dog is left of the cat."), d, None)[0]
    True
"""

from __future__ import annotations

from PIL import Image

from skills.local.colours import box_colours, related
from skills.local.detector import Detection
from skills.local.object_claims import Claim

CONFIDENT = 0.5
PRESENT = 0.85  # a bare presence claim rests on one box: it needs a higher bar
MAX_COUNT = 6
MARGIN = 0.05
NESTED = 0.7  # a box this much inside another of its class makes a count ambiguous
COLOUR_TRUE = 0.35  # claimed colour's share needed (and the top name must be related)
COLOUR_FALSE = 0.10  # claimed colour and its neighbours below this, and ...
COLOUR_TOP = 0.5  # ... an unrelated colour at least this common → false
MIN_PIXELS = 30
ACHROMATIC = ("black", "white", "grey")
ACHROMATIC_TRUE = 0.6  # shadows and highlights make black/white/grey pixels on any object
ACHROMATIC_HUE = 0.2  # ... so such a claim also needs hued pixels below this share

Verdict = tuple[bool | None, str]


def _of(dets: list[Detection], label: str) -> tuple[list[Detection], list[Detection]]:
    sure = [d for d in dets if d.label == label and d.confidence >= CONFIDENT]
    border = [d for d in dets if d.label == label and d.confidence < CONFIDENT]
    return sure, border


def _seen(label: str, sure: list[Detection], border: list[Detection]) -> str:
    confs = ", ".join(f"{d.confidence:.2f}" for d in sure + border)
    return f"{len(sure)} confident '{label}'" + (f" ({confs})" if confs else "")


def _inside(a: Detection, b: Detection) -> bool:
    iw = max(0.0, min(a.x1, b.x1) - max(a.x0, b.x0))
    ih = max(0.0, min(a.y1, b.y1) - max(a.y0, b.y0))
    small = min((a.x1 - a.x0) * (a.y1 - a.y0), (b.x1 - b.x0) * (b.y1 - b.y0))
    return small > 0 and iw * ih / small >= NESTED


def _nested(boxes: list[Detection]) -> bool:
    return any(_inside(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])


def _distinct(boxes: list[Detection]) -> list[Detection]:
    """Boxes with any box mostly inside a more confident one dropped (one object, two boxes)."""
    kept: list[Detection] = []
    for box in boxes:
        if not any(_inside(box, k) for k in kept):
            kept.append(box)
    return kept


def decide(claim: Claim, dets: list[Detection], image: Image.Image | None) -> Verdict:
    """``(verdict, why)``; verdict None means the detections do not settle the claim."""
    if claim.relation:
        return _relation(claim.relation, dets)
    if claim.colour:
        return _colour(claim.colour, dets, image)
    if claim.counts:
        return _counts(claim.counts, dets)
    return _presence(claim.present, claim.negated, dets)


def _presence(classes: tuple[str, ...], negated: bool, dets: list[Detection]) -> Verdict:
    seen = [_of(dets, c) for c in classes]
    why = "; ".join(_seen(c, s, b) for c, (s, b) in zip(classes, seen, strict=True))
    if negated:
        strong = any(d.confidence >= PRESENT for d in seen[0][0])
        return (False, f"detector found {why}") if strong else (None, f"detector: {why}")
    if all(any(d.confidence >= PRESENT for d in s) for s, _ in seen):
        return True, f"detector found {why} (presence needs {PRESENT})"
    return None, f"detector: {why} (a miss is likely for this small model)"


def _count(label: str, mode: str, n: int, dets: list[Detection]) -> Verdict:
    sure, border = _of(dets, label)
    why = _seen(label, sure, border)
    distinct = _distinct(sure)
    if mode in ("exact", "max") and len(distinct) > n:
        return False, f"{why}, {len(distinct)} distinct: more than {n}"
    if n < 1 or n > MAX_COUNT:
        return None, f"{why}; counts are decided for 1–{MAX_COUNT} objects only"
    if mode == "min" and n == 1 and not any(d.confidence >= PRESENT for d in sure):
        return None, f"{why}; 'at least one' is a presence claim and needs {PRESENT}"
    if mode == "min" and len(sure) >= n:
        return True, f"{why}, at least {n}"
    if mode == "exact" and len(sure) == n:
        if border or _nested(sure):
            return None, f"{why}, with borderline or overlapping boxes"
        return True, f"{why}, exactly {n}"
    return None, f"{why}; the count is not settled (a miss is likely for this small model)"


def _counts(counts: tuple[tuple[str, str, int], ...], dets: list[Detection]) -> Verdict:
    results = [_count(label, mode, n, dets) for label, mode, n in counts]
    why = "; ".join(w for _, w in results)
    if any(v is False for v, _ in results):
        return False, f"detector: {why}"
    if all(v is True for v, _ in results):
        return True, f"detector: {why}"
    return None, f"detector: {why}"


def _single(label: str, dets: list[Detection]) -> tuple[Detection | None, str]:
    sure, border = _of(dets, label)
    why = _seen(label, sure, border)
    alone = len(sure) == 1 and not border and not _nested(sure)
    return (sure[0] if alone else None), why


def _relation(rel: tuple[str, str, str], dets: list[Detection]) -> Verdict:
    a_label, how, b_label = rel
    if a_label == b_label:
        return None, "both sides name the same class; which box is which is unknown"
    (a, wa), (b, wb) = _single(a_label, dets), _single(b_label, dets)
    why = f"detector: {wa}; {wb}"
    if a is None or b is None:
        return None, f"{why}; needs exactly one confident box of each"
    if how == "next":
        gap = max(a.x0, b.x0) - min(a.x1, b.x1)
        overlap_y = min(a.y1, b.y1) - max(a.y0, b.y0)
        width = ((a.x1 - a.x0) + (b.x1 - b.x0)) / 2
        if overlap_y > 0 and gap <= 0.5 * width:
            return True, f"{why}; the boxes are side by side"
        return None, f"{why}; 'next to' is only confirmed, never refuted"
    delta = {"left": b.cx - a.cx, "right": a.cx - b.cx, "above": b.cy - a.cy, "below": a.cy - b.cy}
    d = delta[how]
    where = f"centres ({a.cx:.2f}, {a.cy:.2f}) and ({b.cx:.2f}, {b.cy:.2f})"
    if d >= MARGIN:
        return True, f"{why}; {where}"
    if d <= -MARGIN:
        return False, f"{why}; {where}: the other way round"
    return None, f"{why}; {where}: too close to tell"


def _colour(claim: tuple[str, str], dets: list[Detection], image: Image.Image | None) -> Verdict:
    label, colour = claim
    box, why = _single(label, dets)
    if box is None or image is None:
        return None, f"detector: {why}; needs exactly one confident box"
    found = box_colours(image, (box.x0, box.y0, box.x1, box.y1), colour)
    shares = found["shares"]
    if found["pixels"] < MIN_PIXELS or not shares:
        return None, f"detector: {why}; too few object pixels to name a colour"
    top = next(iter(shares))
    mine = shares.get(colour, 0.0)
    near = sum(v for k, v in shares.items() if related(colour, k))
    shown = ", ".join(f"{k} {v:.0%}" for k, v in list(shares.items())[:4])
    dropped = f" (background {', '.join(found['dropped'])} dropped)" if found["dropped"] else ""
    why = f"detector: {why}; colours inside the box: {shown}{dropped}"
    hued = sum(v for k, v in shares.items() if k not in ACHROMATIC)
    if colour in ACHROMATIC:
        if mine >= ACHROMATIC_TRUE and hued < ACHROMATIC_HUE:
            return True, why
    elif mine >= COLOUR_TRUE and related(colour, top):
        return True, why
    if near < COLOUR_FALSE and shares[top] >= COLOUR_TOP:
        return False, why
    return None, f"{why}; not clear enough to decide"
