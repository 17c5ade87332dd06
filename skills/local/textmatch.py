"""Quoted text in checkpoints and fuzzy, normalised matching against prompts or OCR output.

Example:
    >>> quoted("Text below panel 1 reads 'Panel 1: 6:00 AM' or caption reads '6:00 AM'.")
    (['Panel 1: 6:00 AM', '6:00 AM'], 'any')
    >>> contains_fuzzy("PANEL 1 6:00 AM  wake up", "Panel 1: 6:00 AM")
    1.0
"""

from __future__ import annotations

import re
import unicodedata
from difflib import SequenceMatcher

_QUOTES = re.compile(
    r"[\"“”«]([^\"“”«»]{1,200})[\"“”»]|(?<![A-Za-z])['‘’]([^'‘’]{1,200})['‘’](?![A-Za-z])"
)


def normalise(text: str) -> str:
    """Lower-case, accents folded, punctuation dropped, whitespace collapsed."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    text = re.sub(r"[^\w\s]", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def quoted(check: str) -> tuple[list[str], str]:
    """The quoted strings of a checkpoint and whether ``all`` or ``any`` must appear."""
    found = [a or b for a, b in _QUOTES.findall(check)]
    found = [f.strip() for f in found if f.strip()]
    mode = "any" if len(found) > 1 and re.search(r"['\"’”»]\s*,?\s*or\b", check) else "all"
    return found, mode


def contains_fuzzy(haystack: str, needle: str) -> float:
    """Best similarity (0–1) of ``needle`` to any same-length window of ``haystack``."""
    hay, pin = normalise(haystack).replace(" ", ""), normalise(needle).replace(" ", "")
    if not pin:
        return 0.0
    if pin in hay:
        return 1.0
    n = len(pin)
    best = 0.0
    for start in range(0, max(1, len(hay) - n + 1)):
        for width in (n - 1, n, n + 1):
            window = hay[start : start + width]
            if window:
                best = max(best, SequenceMatcher(None, window, pin).ratio())
    return round(best, 3)
