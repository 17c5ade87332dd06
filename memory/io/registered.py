"""Registries of names to ``"module:attribute"`` strings, imported only when a name is used,
so that listing what is registered imports nothing heavy.

Example:
    >>> load_registered({"dumps": "json:dumps"}, "dumps", "codec")({"a": 1})
    '{"a": 1}'
    >>> load_registered({"dumps": "json:dumps"}, "dump", "codec")
    Traceback (most recent call last):
    KeyError: "unknown codec 'dump'; did you mean 'dumps'; available: ['dumps']"
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Mapping
from typing import Any


def load_registered(registry: Mapping[str, str], name: str, what: str) -> Any:
    """The object registered as ``name``; an unknown name is a KeyError that names ``what``
    was asked for, the closest registered name and every registered name."""
    if name not in registry:
        close = difflib.get_close_matches(name, registry, n=1)
        hint = f"; did you mean {close[0]!r}" if close else ""
        raise KeyError(f"unknown {what} {name!r}{hint}; available: {sorted(registry)}")
    module, _, attr = registry[name].partition(":")
    return getattr(importlib.import_module(module), attr)
