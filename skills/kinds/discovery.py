"""Finding skill kinds without importing them: read each module's ``@register_kind`` lines.

The modules of the kind packages (``skills.kinds`` for the ``llm`` backend, ``skills.local``
for the ``local`` one) are listed with :mod:`pkgutil` and their source is parsed, not run:
a module that decorates a function with ``@register_kind("my-kind", backend="local")``
declares that kind for that backend. The registry imports the module only when a card of
that kind is built, so asking which kinds exist never loads a model library.

Example:
    >>> found = discover_kinds()
    >>> found[("objective-checklist", "llm")], found[("objective-checklist", "local")]
    ('skills.kinds.objective', 'skills.local.objective')
"""

from __future__ import annotations

import ast
import importlib.util
import pkgutil
from functools import cache
from pathlib import Path

KIND_PACKAGES = ("skills.kinds", "skills.local")
"""The packages whose modules may register kinds."""
DECORATOR = "register_kind"


def _literal(node: ast.expr | None, where: str) -> str | None:
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    raise ValueError(
        f"{where}: @{DECORATOR}(...) takes its kind and backend as plain strings, so the "
        "registry can find the kind without importing the module"
    )


def registrations(source: str, where: str = "<source>") -> list[tuple[str, str]]:
    """The ``(kind, backend)`` pairs a module's source registers with ``@register_kind``.

    Example:
        >>> registrations('@register_kind("safety", backend="local")\\ndef f(card): ...')
        [('safety', 'local')]
    """
    found: list[tuple[str, str]] = []
    for node in ast.walk(ast.parse(source, filename=where)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for deco in node.decorator_list:
            if not isinstance(deco, ast.Call):
                continue
            func = deco.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name != DECORATOR:
                continue
            keywords = {k.arg: k.value for k in deco.keywords}
            kind = _literal(deco.args[0] if deco.args else keywords.get("name"), where)
            backend = _literal(
                deco.args[1] if len(deco.args) > 1 else keywords.get("backend"), where
            )
            if kind is None:
                raise ValueError(f"{where}: @{DECORATOR}() needs a kind name")
            found.append((kind, backend or "llm"))
    return found


def _module_files(package: str) -> list[tuple[str, Path]]:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return []
    return [
        (f"{package}.{info.name}", Path(folder) / f"{info.name}.py")
        for folder in spec.submodule_search_locations
        for info in pkgutil.iter_modules([folder])
        if not info.ispkg
    ]


@cache
def discover_kinds(packages: tuple[str, ...] = KIND_PACKAGES) -> dict[tuple[str, str], str]:
    """``(kind, backend) -> module`` for every kind the modules of ``packages`` register."""
    found: dict[tuple[str, str], str] = {}
    for package in packages:
        for module, path in _module_files(package):
            if not path.is_file():
                continue
            source = path.read_text(encoding="utf-8")
            if f"@{DECORATOR}(" not in source:
                continue
            for key in registrations(source, str(path)):
                if key in found and found[key] != module:
                    raise ValueError(
                        f"kind {key[0]!r} ({key[1]}) is registered by both {found[key]} and "
                        f"{module}: keep one"
                    )
                found[key] = module
    return found
