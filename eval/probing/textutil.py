"""Text helpers for generated inputs: word limits and n-gram de-duplication.

Example:
    >>> clip_words("one two three", 2)
    'one two'
    >>> near_duplicate("a red cube on a table", ["A red cube on a table."])
    True
    >>> near_duplicate("a blue sphere under a chair", ["a red cube on a table"])
    False
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[\w']+")


def words(text: str) -> list[str]:
    """Lower-case word tokens."""
    return _WORD.findall(text.lower())


def word_count(text: str) -> int:
    """Whitespace-separated words, as a reader would count them."""
    return len(text.split())


def clip_words(text: str, limit: int) -> str:
    """``text`` cut to its first ``limit`` words (whitespace normalised)."""
    return " ".join(text.split()[:limit])


def ngrams(text: str, n: int = 3) -> set[tuple[str, ...]]:
    """Word n-grams of ``text``; a text shorter than ``n`` words gives itself as one gram."""
    toks = words(text)
    if len(toks) < n:
        return {tuple(toks)} if toks else set()
    return {tuple(toks[i : i + n]) for i in range(len(toks) - n + 1)}


def overlap(a: str, b: str, n: int = 3) -> float:
    """Jaccard overlap of the two texts' word n-grams (0..1)."""
    ga, gb = ngrams(a, n), ngrams(b, n)
    if not ga or not gb:
        return 1.0 if ga == gb else 0.0
    return len(ga & gb) / len(ga | gb)


def near_duplicate(text: str, others: list[str], limit: float = 0.5, n: int = 3) -> bool:
    """True when ``text`` shares at least ``limit`` of its trigrams with one of ``others``."""
    return any(overlap(text, other, n) >= limit for other in others)
