"""Keyword sets per time window: the cheap first relevance stage.

The file (TOML) holds ``[[window]]`` tables with optional ``start``/``end`` (inclusive ISO
dates or date-times) and ``keywords``; a post passes when a window covers its time and one of
that window's keywords starts a word of its text (case-insensitive).

Example:
    >>> from datetime import datetime, UTC
    >>> ks = KeywordWindows.parse({"window": [{"start": "2024-06-01", "keywords": ["flux"]}]})
    >>> ks.matches("Trying FLUX today", datetime(2024, 7, 1, tzinfo=UTC))
    True
    >>> ks.matches("Trying flux today", datetime(2024, 1, 1, tzinfo=UTC))
    False
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any

DEFAULT_FILE = Path(__file__).parent / "data" / "keywords.toml"


class KeywordFileError(ValueError):
    """A keyword file that cannot be used; the message names the problem."""


def _when(value: Any, where: str, end: bool) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime.combine(value, time.max if end else time.min, tzinfo=UTC)
    if isinstance(value, str):
        try:
            return _when(datetime.fromisoformat(value) if "T" in value else
                         date.fromisoformat(value), where, end)
        except ValueError:
            pass
    raise KeywordFileError(f"{where}: expected an ISO date or date-time, got {value!r}")


@dataclass(frozen=True)
class Window:
    """One time window and its keyword pattern."""

    start: datetime | None
    end: datetime | None
    pattern: re.Pattern[str]

    def covers(self, when: datetime) -> bool:
        when = when if when.tzinfo else when.replace(tzinfo=UTC)
        return (self.start is None or when >= self.start) and (self.end is None or when <= self.end)


@dataclass(frozen=True)
class KeywordWindows:
    """All windows of a keyword file."""

    windows: tuple[Window, ...]

    @classmethod
    def parse(cls, data: dict[str, Any], source: str = "keywords") -> KeywordWindows:
        """Build from parsed TOML; problems raise :class:`KeywordFileError`."""
        entries = data.get("window")
        if not isinstance(entries, list) or not entries:
            raise KeywordFileError(f"{source}: needs at least one [[window]] table")
        windows = []
        for k, entry in enumerate(entries):
            where = f"{source}: window {k + 1}"
            words = entry.get("keywords") if isinstance(entry, dict) else None
            if not isinstance(words, list) or not words or not all(
                isinstance(w, str) and w.strip() for w in words
            ):
                raise KeywordFileError(f"{where}: keywords must be a non-empty list of strings")
            alternatives = "|".join(re.escape(w.strip()) for w in words)
            windows.append(
                Window(
                    _when(entry.get("start"), f"{where}: start", end=False),
                    _when(entry.get("end"), f"{where}: end", end=True),
                    re.compile(rf"(?<!\w)(?:{alternatives})", re.IGNORECASE),
                )
            )
        return cls(tuple(windows))

    @classmethod
    def load(cls, path: Path | None = None) -> KeywordWindows:
        """Read a keyword file (default: the packaged one)."""
        path = Path(path) if path else DEFAULT_FILE
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise KeywordFileError(f"{path}: cannot read ({exc.strerror})") from None
        except tomllib.TOMLDecodeError as exc:
            raise KeywordFileError(f"{path}: not valid TOML ({exc})") from None
        return cls.parse(data, str(path))

    def matches(self, text: str, when: datetime) -> bool:
        """Whether a post written at ``when`` passes."""
        return any(w.covers(when) and w.pattern.search(text) for w in self.windows)
