"""Package names imported on first use (PEP 562), so importing a package stays cheap.

Example:
    >>> names, getattr_ = lazy_exports("demo", {"json": ("dumps", "loads")})
    >>> names, getattr_("dumps").__module__
    (['dumps', 'loads'], 'json')
    >>> getattr_("nope")
    Traceback (most recent call last):
    AttributeError: module 'demo' has no attribute 'nope'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, where: Mapping[str, tuple[str, ...]]
) -> tuple[list[str], Callable[[str], Any]]:
    """The sorted public names of ``package`` and its module ``__getattr__``, which imports
    each name from its module in ``where`` (module → names) when it is first asked for.

    In a package's ``__init__.py``: ``__all__, __getattr__ = lazy_exports(__name__, {...})``.
    """
    home = {name: module for module, names in where.items() for name in names}

    def __getattr__(name: str) -> Any:
        if name not in home:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(home[name]), name)

    return sorted(home), __getattr__
