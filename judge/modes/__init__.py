"""The mode registry: every kind of judgment the engine can run (docs/design.md#modes).

Modes live in :data:`MODES`: the built-in ones are the sub-packages of ``judge.modes`` (each
exposes one :class:`Mode` instance as ``MODE``), registered lazily and imported on first use
of their name; :func:`register_mode` adds one at run time, and a plugin adds one with an entry
point in ``t2i_judge.modes`` naming its ``Mode`` instance (docs/extending.md).

Example:
    >>> available_modes()
    ['compare', 'edit', 'edit_compare', 'score']
    >>> get_mode("scor")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    registry.core.UnknownName: unknown mode 'scor'; did you mean 'score'? available: compare, ...
"""

from __future__ import annotations

from typing import Any

from judge.modes.base import Mode, SafetyTarget, Views
from registry import Registry

__all__ = [
    "MODES",
    "Mode",
    "SafetyTarget",
    "Views",
    "available_modes",
    "get_mode",
    "mode_of",
    "register_mode",
]

DEFAULT_MODE = "score"
MODES = Registry[Mode]("mode", group="t2i_judge.modes")
"""Every mode by name (a mode's ``name`` is its key)."""
for _name in ("compare", "edit", "edit_compare", "score"):
    MODES.add_lazy(_name, f"{__name__}.{_name}:MODE")


def register_mode(mode: Mode) -> Mode:
    """Make ``mode`` available under ``mode.name`` at run time (replacing one of that name)."""
    return MODES.add(mode.name, mode, replace=True)


def available_modes() -> list[str]:
    """Every mode name, imported or not."""
    return MODES.names()


def get_mode(name: str) -> Mode:
    """The mode called ``name``; unknown names get suggestions (:class:`registry.UnknownName`)."""
    return MODES.get(name)


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

            raise InputError("mode", str(exc)) from None
    for name in available_modes():
        mode = get_mode(name)
        if isinstance(request, mode.request_model):
            return mode
    return get_mode(default)
