"""Palette checks ("Only black, blue, red and white are used"), decided by naming pixels.

The check must name at least two colours, say "only" (or "limited/restricted to"), and use
no other words than ``palette_words`` in ``colour_words.json``. Every pixel gets a colour name
(:func:`skills.local.colours.name_pixels`); names that neighbour an allowed colour are edge
blends (anti-aliasing, shading), and grey counts as a blend when black and white are both
allowed.

- true: colours outside the palette and its blends cover at most :data:`STRAY` of the image,
  and blends at most :data:`BLENDS`;
- false: one colour unrelated to the palette covers at least :data:`FOREIGN`;
- otherwise unscored.

Example:
    >>> parse_palette("Only black, blue, red and white are used.")
    ('black', 'blue', 'red', 'white')
    >>> parse_palette("The car is red.") is None
    True
"""

from __future__ import annotations

import re

from PIL import Image

from skills.local.colours import palette_shares, related, vocabulary, word_to_name

STRAY = 0.005
BLENDS = 0.05
FOREIGN = 0.05


def parse_palette(text: str) -> tuple[str, ...] | None:
    """The allowed colour names, or None when the text is not a plain palette check."""
    words = re.findall(r"[a-z]+", text.lower())
    names = word_to_name()
    if not ({"only", "limited", "restricted"} & set(words)):
        return None
    words_ok = set(vocabulary()["palette_words"])
    if any(w not in names and w not in words_ok for w in words):
        return None
    allowed = tuple(sorted({names[w] for w in words if w in names}))
    return allowed if len(allowed) >= 2 else None


def decide_palette(allowed: tuple[str, ...], image: Image.Image) -> tuple[bool | None, str]:
    """``(verdict, why)`` for an image against the allowed colour names."""
    shares = palette_shares(image)
    blend_ok = {"grey"} if {"black", "white"} <= set(allowed) else set()
    inside = sum(v for k, v in shares.items() if k in allowed)
    blends = sum(
        v
        for k, v in shares.items()
        if k not in allowed and (k in blend_ok or any(related(a, k) for a in allowed))
    )
    foreign = {
        k: v
        for k, v in shares.items()
        if k not in allowed and k not in blend_ok and not any(related(a, k) for a in allowed)
    }
    shown = ", ".join(f"{k} {v:.1%}" for k, v in list(shares.items())[:6])
    why = f"pixel colours: {shown}; palette {', '.join(allowed)}"
    if foreign and max(foreign.values()) >= FOREIGN:
        worst = max(foreign, key=foreign.__getitem__)
        return False, f"{why}; {worst} is outside it"
    stray = 1.0 - inside - blends
    if stray <= STRAY and blends <= BLENDS:
        return True, f"{why}; {inside:.1%} inside, {blends:.1%} edge blends"
    return None, f"{why}; {stray:.1%} outside and {blends:.1%} blends: not clear enough"
