"""The registry primitive: ``Registry[T]`` maps names to objects of one kind.

Three ways in, one way out:

* ``@reg.register("name")`` (or ``reg.add("name", obj)``): an object already imported;
* ``reg.add_lazy("name", "package.module:attr")``: imported on first :meth:`Registry.get`,
  so listing a registry never loads a model library;
* an installed distribution's entry point in the registry's ``group``
  (``[project.entry-points."t2i_judge.editors"]`` in its ``pyproject.toml``), read from the
  installed metadata the first time a name is not found among the built-ins, and imported
  like a lazy entry.

:meth:`Registry.get` answers an unknown name with :class:`UnknownName` (a ``KeyError`` whose
one-line message has the closest names and every name); a plugin that fails to import raises
:class:`PluginError` naming its distribution.

Example:
    >>> shapes = Registry[type]("shape")
    >>> @shapes.register("square")
    ... class Square: ...
    >>> shapes.add_lazy("fraction", "fractions:Fraction", help="exact ratios")
    >>> shapes.names(), shapes.info("fraction")["help"]
    (['fraction', 'square'], 'exact ratios')
    >>> shapes.get("fraction")(1, 3)
    Fraction(1, 3)
    >>> try:
    ...     shapes.get("squar")
    ... except UnknownName as exc:
    ...     print(exc, exc.suggestions)
    unknown shape 'squar'; did you mean 'square'? available: fraction, square ['square']
"""

from __future__ import annotations

import importlib
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import EntryPoint, distributions
from typing import Any, Generic, TypeVar

from registry.suggest import did_you_mean, suggest

T = TypeVar("T")
_UNSET: Any = object()
BUILT_IN = "built-in"


class UnknownName(KeyError):
    """An unknown name: ``what`` was asked for, ``name`` is what was given, ``names`` every
    name there is and ``suggestions`` the closest ones. ``str()`` is the one-line message
    (not quoted, unlike a plain ``KeyError``), so a CLI or a service can show it as it is.
    ``context`` goes first (``"card 'x' has "``); ``shown`` replaces the names in the message
    (how to spell each, e.g. ``st:<path-or-hub-id>``)."""

    def __init__(
        self,
        what: str,
        name: object,
        names: list[str],
        context: str = "",
        shown: list[str] | None = None,
    ) -> None:
        self.what, self.name, self.names = what, name, names
        self.suggestions = suggest(name, names)
        hint = did_you_mean(name, names)
        listing = ", ".join(names if shown is None else shown) or "(none)"
        message = (
            f"{context}unknown {what} {name!r}; {hint + ' ' if hint else ''}available: {listing}"
        )
        super().__init__(message)

    def __str__(self) -> str:
        return str(self.args[0])


class PluginError(ImportError):
    """An installed plugin's entry could not be loaded; ``distribution`` names the package to
    fix or uninstall."""

    def __init__(self, message: str, distribution: str, group: str, name: str) -> None:
        super().__init__(message)
        self.distribution, self.group, self.entry = distribution, group, name


@dataclass
class _Entry:
    target: str | None
    obj: Any = _UNSET
    origin: str = BUILT_IN
    info: dict[str, Any] = field(default_factory=dict)


def load_target(target: str) -> Any:
    """The object ``"package.module:attr.sub"`` names (a module when there is no ``:``)."""
    module, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module.strip())
    for part in filter(None, attr.strip().split(".")):
        obj = getattr(obj, part)
    return obj


@cache
def installed_entry_points() -> dict[str, list[EntryPoint]]:
    """Every installed distribution's entry points by group, read once per process (reading
    the metadata of every distribution is the slow part: tens of milliseconds). A
    distribution found twice on the path counts once, the first, as ``entry_points()`` does."""
    groups: dict[str, list[EntryPoint]] = {}
    seen: set[str] = set()
    for dist in distributions():
        # the name from the metadata folder's name, as entry_points() does (no file read)
        name = getattr(dist, "_normalized_name", None) or str(dist.metadata["Name"]).lower()
        if name in seen:
            continue
        seen.add(name)
        for ep in dist.entry_points:
            groups.setdefault(ep.group, []).append(ep)
    return groups


class Registry(Generic[T]):
    """Names to objects of one kind (see the module docstring).

    ``what`` names an entry in messages (``"dataset"``); ``group`` is the entry-point group
    plugins register in (``None``: no plugins). Iteration and :meth:`items` keep the order of
    registration (built-ins first); :meth:`names` is sorted.
    """

    def __init__(
        self, what: str, group: str | None = None, *, lazy: Mapping[str, str] | None = None
    ) -> None:
        self.what, self.group = what, group
        self._entries: dict[str, _Entry] = {}
        self._scanned = group is None
        self._lock = threading.RLock()
        for name, target in (lazy or {}).items():  # the built-ins as a name -> "module:attr" table
            self.add_lazy(name, target)

    def __repr__(self) -> str:
        return f"Registry({self.what!r}, group={self.group!r})"

    # -- ways in ---------------------------------------------------------------------------
    def add(self, name: str, obj: T, *, replace: bool = False, **info: Any) -> T:
        """Register ``obj`` as ``name`` (``info``: what listing it needs without loading)."""
        self._put(name, _Entry(None, obj, BUILT_IN, info), replace)
        return obj

    def register(self, name: str, *, replace: bool = False, **info: Any) -> Callable[[T], T]:
        """Decorator form of :meth:`add`: ``@reg.register("name")``."""

        def deco(obj: T) -> T:
            return self.add(name, obj, replace=replace, **info)

        return deco

    def add_lazy(self, name: str, target: str, *, replace: bool = False, **info: Any) -> None:
        """Register ``"module:attr"`` as ``name``; the module is imported on first use."""
        if ":" not in target:
            raise ValueError(f"{self.what} {name!r}: lazy target {target!r} is not 'module:attr'")
        self._put(name, _Entry(target, _UNSET, BUILT_IN, info), replace)

    def remove(self, name: str) -> None:
        """Forget ``name`` (a plugin of that name is found again on the next scan)."""
        with self._lock:
            self._entries.pop(name, None)

    def _put(self, name: str, entry: _Entry, replace: bool) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"a {self.what} name must be a non-empty string, got {name!r}")
        with self._lock:
            old = self._entries.get(name)
            same = old is not None and (
                (entry.obj is not _UNSET and old.obj is entry.obj)
                or (entry.target is not None and old.target == entry.target)
            )
            if old is not None and not (replace or same):
                raise ValueError(
                    f"{self.what} {name!r} is registered twice ({old.origin}"
                    f"{' ' + old.target if old.target else ''}); pick another name or "
                    "pass replace=True"
                )
            self._entries[name] = entry

    def _scan(self) -> None:
        """Read the entry points of :attr:`group` once (importing nothing)."""
        if self._scanned:
            return
        with self._lock:
            if self._scanned:
                return
            self._scanned = True
            assert self.group is not None
            for ep in installed_entry_points().get(self.group, []):
                dist = ep.dist.name if ep.dist is not None else "an unknown distribution"
                if ep.name in self._entries:
                    warnings.warn(
                        f"{dist} registers {self.what} {ep.name!r} ({self.group}), which is "
                        f"already {self._entries[ep.name].origin}; the plugin entry is ignored",
                        stacklevel=2,
                    )
                    continue
                self._entries[ep.name] = _Entry(ep.value, _UNSET, f"plugin {dist}")

    def rescan(self) -> None:
        """Forget the plugin entries read so far and read the installed metadata again."""
        installed_entry_points.cache_clear()
        with self._lock:
            for name in [n for n, e in self._entries.items() if e.origin != BUILT_IN]:
                del self._entries[name]
            self._scanned = self.group is None

    # -- ways out --------------------------------------------------------------------------
    def __contains__(self, name: object) -> bool:
        if name in self._entries:
            return True
        self._scan()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        self._scan()
        return iter(list(self._entries))

    def __len__(self) -> int:
        self._scan()
        return len(self._entries)

    def __getitem__(self, name: str) -> T:
        return self.get(name)

    def names(self, plugins: bool = True) -> list[str]:
        """Every registered name, sorted; ``plugins=False``: only those registered in code
        (the entry points are not read). Nothing is imported."""
        if not plugins:
            return sorted(n for n, e in self._entries.items() if e.origin == BUILT_IN)
        return sorted(self)

    def info(self, name: str) -> Mapping[str, Any]:
        """What was registered with ``name`` besides the object (``{}`` for a plugin)."""
        return self._entry(name).info

    def target(self, name: str) -> str | None:
        """The ``"module:attr"`` a lazy or plugin entry names (``None`` for an added object)."""
        return self._entry(name).target

    def origin(self, name: str) -> str:
        """``"built-in"`` or ``"plugin <distribution>"``."""
        return self._entry(name).origin

    def _entry(self, name: str) -> _Entry:
        if not isinstance(name, str) or name not in self:
            raise UnknownName(self.what, name, self.names())
        return self._entries[name]

    def get(self, name: str) -> T:
        """The object registered as ``name``, imported on first use.

        Raises :class:`UnknownName` for a name nobody registered and :class:`PluginError`
        when a plugin's entry fails to import.
        """
        entry = self._entry(name)
        if entry.obj is _UNSET:
            with self._lock:
                if entry.obj is _UNSET:
                    entry.obj = self._load(name, entry)
        return entry.obj

    def _load(self, name: str, entry: _Entry) -> Any:
        assert entry.target is not None
        if entry.origin == BUILT_IN:
            return load_target(entry.target)
        try:
            return load_target(entry.target)
        except Exception as exc:
            dist = entry.origin.removeprefix("plugin ")
            raise PluginError(
                f"the {self.what} {name!r} of {dist} (entry point {entry.target!r} in "
                f"{self.group}) failed to import: {type(exc).__name__}: {exc}; fix or "
                f"uninstall {dist}",
                dist,
                str(self.group),
                name,
            ) from exc

    def items(self) -> list[tuple[str, T]]:
        """Every ``(name, object)`` in registration order, importing each entry."""
        return [(name, self.get(name)) for name in self]
