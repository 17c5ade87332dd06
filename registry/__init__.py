"""One way to register an extension: :class:`Registry` (names to objects, entries imported
lazily, plugins found through entry points) and the one "did you mean" lookup.

This is the bottom floor of the distribution: it imports nothing of the product, so
``memory``, ``skills``, ``judge``, ``api`` and ``eval`` all build their registries on it
(docs/extending.md lists every registry and its entry-point group).

Example:
    >>> codecs = Registry[object]("codec", group=None)
    >>> codecs.add_lazy("dumps", "json:dumps")
    >>> codecs.get("dumps")({"a": 1})
    '{"a": 1}'
    >>> codecs.get("dump")
    Traceback (most recent call last):
    ...
    registry.core.UnknownName: unknown codec 'dump'; did you mean 'dumps'? available: dumps
"""

from registry.core import PluginError, Registry, UnknownName
from registry.suggest import did_you_mean, suggest

__all__ = ["PluginError", "Registry", "UnknownName", "did_you_mean", "suggest"]
