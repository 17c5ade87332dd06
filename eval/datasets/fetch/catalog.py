"""The public sets' sources (``sources.toml``), read into records the fetcher carries out.

Example:
    >>> src = source("tifa")
    >>> src.urls[0].path, src.manual[0].place, src.fetchable
    ('human_annotations.json', 'images', 'labels; images by hand')
    >>> source("tiffa")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    eval.datasets.fetch.catalog.FetchError: unknown set 'tiffa'; did you mean tifa? (sets: ...)
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from registry import did_you_mean

SOURCES = Path(__file__).resolve().parents[1] / "public" / "sources.toml"


class FetchError(Exception):
    """A fetch that cannot go on; the message says what happened and what to do."""


@dataclass(frozen=True)
class UrlFile:
    """One file of the authors' repository, saved as ``path``."""

    url: str
    path: str
    sha256: str | None = None
    size: int | None = None


@dataclass(frozen=True)
class HubFiles:
    """Files of one Hugging Face dataset, by name and by pattern, saved under ``into``."""

    repo: str
    revision: str = "main"
    files: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    into: str = ""
    unpack: tuple[str, ...] = ()
    join: dict[str, str] | None = None


@dataclass(frozen=True)
class Manual:
    """A download only a person can make, and where its files go."""

    what: str
    url: str
    place: str
    pattern: str = "*"


@dataclass(frozen=True)
class Source:
    """One set's sources, licence and citation."""

    name: str
    source: str
    licence: str
    citation: str
    checked: str
    size_note: str = ""
    urls: tuple[UrlFile, ...] = ()
    hubs: tuple[HubFiles, ...] = ()
    manual: tuple[Manual, ...] = field(default_factory=tuple)

    @property
    def fetchable(self) -> str:
        """``yes``, ``labels; images by hand`` or ``by hand``, as ``judge datasets list``
        says it."""
        if not self.manual:
            return "yes"
        return "labels; images by hand" if self.urls or self.hubs else "by hand"


def _tuple(entry: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: tuple(v) if k in keys else v for k, v in entry.items()}


def catalog(path: Path | None = None) -> dict[str, Source]:
    """Every set of ``sources.toml`` (or of ``path``), by name."""
    return _load(path or SOURCES)


@cache
def _load(path: Path) -> dict[str, Source]:
    with path.open("rb") as f:
        raw = tomllib.load(f)
    out = {}
    for name, entry in raw.items():
        out[name] = Source(
            name=name,
            source=entry["source"],
            licence=entry["licence"],
            citation=entry["citation"],
            checked=entry["checked"],
            size_note=entry.get("size_note", ""),
            urls=tuple(UrlFile(**u) for u in entry.get("url", ())),
            hubs=tuple(
                HubFiles(**_tuple(h, "files", "patterns", "unpack")) for h in entry.get("hub", ())
            ),
            manual=tuple(Manual(**m) for m in entry.get("manual", ())),
        )
    return out


def source(name: str) -> Source:
    """The set called ``name``; an unknown name gets the nearest ones."""
    sets = catalog()
    if name in sets:
        return sets[name]
    hint = did_you_mean(name, sets, n=2, quote=False)
    hint = f"; {hint}" if hint else ""
    raise FetchError(f"unknown set {name!r}{hint} (sets: {', '.join(sets)})")
