"""Exemplar sources: turn a dataset's own layout into exemplar records.

``judge memory build NAME --from SOURCE:DIR`` uses the source registered as SOURCE; a plain
path is read as exemplar JSONL.

Example:
    >>> sorted(SOURCES)
    ['avt']
"""

from __future__ import annotations

import difflib
import importlib
from pathlib import Path

from memory.exemplar import ExemplarRecord

SOURCES: dict[str, str] = {"avt": "memory.sources.avt:records"}


def from_source(spec: str) -> tuple[list[ExemplarRecord], Path]:
    """``"avt:../shared/data/avt-dev"`` → (records, base folder for relative image paths)."""
    name, _, folder = spec.partition(":")
    if name not in SOURCES:
        close = difflib.get_close_matches(name, SOURCES, n=1)
        hint = f"; did you mean {close[0]!r}" if close else ""
        raise KeyError(f"unknown exemplar source {name!r}{hint}; available: {sorted(SOURCES)}")
    module, _, attr = SOURCES[name].partition(":")
    fn = getattr(importlib.import_module(module), attr)
    base = Path(folder)
    return fn(base), base


def is_source_spec(value: str) -> bool:
    """True for ``NAME:PATH`` where NAME is a registered source."""
    name, sep, _ = value.partition(":")
    return bool(sep) and name in SOURCES
