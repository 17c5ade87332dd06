"""Exemplar sources: turn a dataset's own layout into exemplar records.

``judge memory build NAME --from SOURCE:DIR`` uses the source registered as SOURCE; a plain
path is read as exemplar JSONL. A plugin adds a source with an entry point in
``t2i_judge.exemplar_sources`` (a function ``folder -> list[ExemplarRecord]``).

Example:
    >>> SOURCES.names()
    ['avt']
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memory.exemplar import ExemplarRecord
from registry import Registry

SOURCES = Registry[Callable[[Path], list[ExemplarRecord]]](
    "exemplar source", group="t2i_judge.exemplar_sources"
)
SOURCES.add_lazy("avt", "memory.sources.avt:records")


def from_source(spec: str) -> tuple[list[ExemplarRecord], Path]:
    """``"avt:../shared/data/avt-dev"`` → (records, base folder for relative image paths)."""
    name, _, folder = spec.partition(":")
    fn = SOURCES.get(name)
    base = Path(folder)
    return fn(base), base


def is_source_spec(value: str) -> bool:
    """True for ``NAME:PATH`` where NAME is a registered source."""
    name, sep, _ = value.partition(":")
    return bool(sep) and name in SOURCES
