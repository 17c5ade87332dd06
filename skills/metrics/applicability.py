"""Rule-based applicability from the instruction text (the rules live in ``rules.toml``).

Used when no model decides applicability; a model's decision can be passed to
:func:`skills.metrics.compute_all` instead (``applicability=``). Also extracts the text a
text edit asks for.

Example:
    >>> rule_applies("color_shift", "Make the car blue.")[0]
    False
    >>> rule_applies("color_shift", "Remove the lamp post.")
    (True, None)
    >>> requested_text('Change the sign from "OPEN" to "CLOSED".')
    ['CLOSED']
"""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from pathlib import Path

from skills.local.textmatch import quoted

RULES_FILE = Path(__file__).with_name("rules.toml")
_QUOTE = re.compile(
    r"[\"“”«]([^\"“”«»]{1,200})[\"“”»]|(?<![A-Za-z])['‘’]([^'‘’]{1,200})['‘’](?![A-Za-z])"
)


@lru_cache(maxsize=1)
def rules() -> dict:
    """The parsed rule file, patterns compiled (cached)."""
    with RULES_FILE.open("rb") as fh:
        data = tomllib.load(fh)
    compiled: dict = {}
    for metric, section in data.items():
        entries = [
            (entry["reason"], [re.compile(p, re.IGNORECASE) for p in entry["patterns"]])
            for entry in section.get("not_applicable", [])
        ]
        extra = {k: re.compile(v, re.IGNORECASE) for k, v in section.items() if isinstance(v, str)}
        compiled[metric] = {"not_applicable": entries, **extra}
    return compiled


def rule_applies(metric: str, instruction: str) -> tuple[bool, str | None]:
    """``(False, reason)`` if a not-applicable rule of ``metric`` matches, else ``(True, None)``."""
    for reason, patterns in rules().get(metric, {}).get("not_applicable", []):
        if any(p.search(instruction) for p in patterns):
            return False, reason
    return True, None


def requested_text(instruction: str) -> list[str]:
    """The quoted strings the instruction asks to show (old text being replaced is dropped).

    Returns ``[]`` when nothing is quoted or no cue word (text, sign, says, …) marks the quote
    as text to render.
    """
    section = rules().get("text_rendering", {})
    cues, replaced = section.get("cues"), section.get("replaced")
    found = quoted(instruction)[0]
    if not found or (cues is not None and not cues.search(instruction)):
        return []
    kept = []
    for match in _QUOTE.finditer(instruction):
        text = (match.group(1) or match.group(2) or "").strip()
        if text and not (replaced is not None and replaced.search(instruction[: match.start()])):
            kept.append(text)
    return kept or found
