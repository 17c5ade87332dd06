"""The mode registry: every kind of judgment the engine can run (docs/design.md#modes).

Modes are the sub-packages of ``judge.modes`` (each registers one :class:`Mode` instance
when imported) plus any registered at run time with :func:`register_mode`. Packages are
imported lazily, on first use of their name.

Example:
    >>> available_modes()
    ['compare', 'edit', 'edit_compare', 'score']
    >>> get_mode("scor")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    KeyError: "unknown mode 'scor'; did you mean 'score'; available: ['compare', 'edit', ...]"
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
from functools import cache
from typing import Any

from judge.modes.base import Mode, SafetyTarget, Views

__all__ = [
    "Mode",
    "SafetyTarget",
    "Views",
    "available_modes",
    "get_mode",
    "mode_of",
    "register_mode",
]

DEFAULT_MODE = "score"
_MODES: dict[str, Mode] = {}


@cache
def _packages() -> tuple[str, ...]:
    return tuple(sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg))


def register_mode(mode: Mode) -> Mode:
    """Make ``mode`` available under ``mode.name`` (a package calls this on import)."""
    _MODES[mode.name] = mode
    return mode


def available_modes() -> list[str]:
    """Every mode name, imported or not."""
    return sorted({*_packages(), *_MODES})


def get_mode(name: str) -> Mode:
    """The mode called ``name``; unknown names get suggestions."""
    if name not in _MODES and name in _packages():
        importlib.import_module(f"{__name__}.{name}")
    try:
        return _MODES[name]
    except KeyError:
        close = difflib.get_close_matches(str(name), available_modes(), n=1)
        hint = f"; did you mean {close[0]!r}" if close else ""
        raise KeyError(f"unknown mode {name!r}{hint}; available: {available_modes()}") from None


def mode_of(request: Any, default: str = DEFAULT_MODE) -> Mode:
    """The mode a request asks for: its ``"mode"`` field, its model class, or ``default``."""
    if isinstance(request, dict):
        name = request.get("mode", default)
        if not isinstance(name, str):
            from judge.errors import InputError

            raise InputError("mode", f"expected a mode name, got {type(name).__name__}")
        try:
            return get_mode(name)
        except KeyError as exc:
            from judge.errors import InputError

            raise InputError("mode", str(exc.args[0])) from None
    for name in available_modes():
        mode = get_mode(name)
        if isinstance(request, mode.request_model):
            return mode
    return get_mode(default)
