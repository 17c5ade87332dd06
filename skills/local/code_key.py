"""A key of the code that computes something, so that a cache of its results goes stale by
itself when the code changes — no hand-bumped version string to forget.

The key hashes the syntax tree (docstrings dropped; comments are not in it) of a module and of
every module of the same package it imports, transitively. Rewording a docstring or a comment
keeps the key; any change to code — a constant, an expression, a new import — changes it.

Example:
    >>> key = code_key("skills.local.selection")
    >>> len(key), key == code_key("skills.local.selection")
    (16, True)
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
from functools import lru_cache
from pathlib import Path

__all__ = ["code_key", "module_closure"]


def _source_path(module: str, prefix: str, root: Path) -> Path | None:
    """The file of ``module`` under the package ``prefix`` (found at ``root``), or None
    (a name imported from a module is not a module)."""
    rel = module.removeprefix(prefix).strip(".").split(".") if module != prefix else []
    base = root.joinpath(*rel)
    for path in (base.with_suffix(".py") if rel else None, base / "__init__.py"):
        if path is not None and path.is_file():
            return path
    return None


def _imports(tree: ast.Module, prefix: str) -> set[str]:
    """Modules under ``prefix`` named by the tree's import statements."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)  # submodules by name
    return {m for m in found if m == prefix or m.startswith(prefix + ".")}


def _without_docstrings(tree: ast.Module) -> ast.Module:
    for node in ast.walk(tree):
        if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        body = node.body
        first = body[0].value if body and isinstance(body[0], ast.Expr) else None
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            node.body = body[1:] or [ast.Pass()]
    return tree


def module_closure(module: str) -> dict[str, ast.Module]:
    """``module`` and every module of its top two package levels it imports, transitively,
    each as its docstring-free syntax tree."""
    prefix = ".".join(module.split(".")[:2])
    spec = importlib.util.find_spec(prefix)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"{prefix} is not a package")
    root = Path(next(iter(spec.submodule_search_locations)))
    trees: dict[str, ast.Module] = {}
    todo = [module]
    while todo:
        name = todo.pop()
        path = None if name in trees else _source_path(name, prefix, root)
        if path is None:
            continue
        tree = _without_docstrings(ast.parse(path.read_text(encoding="utf-8")))
        trees[name] = tree
        todo.extend(_imports(tree, prefix) - set(trees))
    return trees


@lru_cache(maxsize=8)
def code_key(module: str) -> str:
    """16 hex digits of sha256 over the docstring-free code of ``module``'s closure."""
    digest = hashlib.sha256()
    for name, tree in sorted(module_closure(module).items()):
        digest.update(name.encode() + b"\0" + ast.dump(tree).encode() + b"\0")
    return digest.hexdigest()[:16]
