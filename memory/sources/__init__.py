"""Exemplar sources: turn a dataset's own layout into exemplar records.

``judge memory build NAME --from SOURCE:DIR`` uses the source registered as SOURCE; a plain
path is read as exemplar JSONL.

Example:
    >>> sorted(SOURCES)
    ['avt']
"""

from __future__ import annotations

from pathlib import Path

from memory.exemplar import ExemplarRecord
from memory.io.registered import load_registered

SOURCES: dict[str, str] = {"avt": "memory.sources.avt:records"}


def from_source(spec: str) -> tuple[list[ExemplarRecord], Path]:
    """``"avt:../shared/data/avt-dev"`` → (records, base folder for relative image paths)."""
    name, _, folder = spec.partition(":")
    fn = load_registered(SOURCES, name, "exemplar source")
    base = Path(folder)
    return fn(base), base


def is_source_spec(value: str) -> bool:
    """True for ``NAME:PATH`` where NAME is a registered source."""
    name, sep, _ = value.partition(":")
    return bool(sep) and name in SOURCES
