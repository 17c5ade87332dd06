"""Pass/fail criteria for probe verdicts, as data (``prompts/criteria.toml``).

A criterion names the checks every image gets on top of the checks written for its input
(the default, ``alignment_defects``, adds one "no obvious defects" check). Add a criterion by
adding a ``[criteria.NAME]`` table to the file; ``judge probe run --criterion NAME`` and the
``criterion`` field of ``POST /v1/probes`` choose it.

Example:
    >>> sorted(criteria())[:2]
    ['alignment', 'alignment_defects']
    >>> check_criterion("alignment")
    'alignment'
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any

CRITERIA_FILE = Path(__file__).parent / "prompts" / "criteria.toml"
DEFAULT_CRITERION = "alignment_defects"


@lru_cache(maxsize=1)
def criteria() -> dict[str, dict[str, Any]]:
    """The criteria of ``prompts/criteria.toml`` by name."""
    return tomllib.loads(CRITERIA_FILE.read_text(encoding="utf-8"))["criteria"]


def check_criterion(name: str) -> str:
    """``name`` when it is a known criterion; otherwise a ValueError listing the known ones."""
    if name not in criteria():
        known = ", ".join(f"{k} ({v.get('description', '')})" for k, v in criteria().items())
        raise ValueError(f"unknown criterion {name!r}; known: {known}")
    return name
