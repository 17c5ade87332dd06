"""The project's other top-level packages, bound to their own files when ``judge`` is imported.

The distribution installs ``api``, ``eval``, ``memory`` and ``skills`` as top-level packages
beside ``judge``. Python looks in a script's own folder first, so a user's ``eval.py`` (or
``api.py``, ``memory.py``, ``skills.py``) beside their script used to be imported in place of
the package the moment the judge needed it (``judge.leaderboard`` failed with ``No module
named 'eval.leaderboards'``). ``import judge`` now loads each of the four from the folder next
to ``judge`` (their ``__init__`` files are docstrings: nothing heavy runs), so later imports of
their submodules find the right package whatever lies beside the script. When a module of one
of those names was imported from elsewhere *before* ``judge``, the judge cannot work beside it,
and ``import judge`` says which file to rename.

Example:
    >>> import eval, judge.packages
    >>> judge.packages.own_folder("eval") == judge.packages.ROOT / "eval"
    True
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OWN = ("memory", "skills", "api", "eval")


def own_folder(name: str) -> Path | None:
    """The folder of the loaded module ``name`` (None when it is not a package)."""
    module = sys.modules.get(name)
    path = getattr(module, "__file__", None)
    return Path(path).resolve().parent if path and path.endswith("__init__.py") else None


def bind_own_packages() -> None:
    """Load each of :data:`OWN` from :data:`ROOT` unless it is loaded already; raise
    ``ImportError`` naming the file when a module of that name came from elsewhere."""
    for name in OWN:
        folder = ROOT / name
        if name in sys.modules:
            if own_folder(name) != folder:
                where = getattr(sys.modules[name], "__file__", None) or "(built in)"
                raise ImportError(
                    f"a module named {name!r} ({where}) was imported before judge, and the "
                    f"judge needs its own package of that name ({folder}); rename your "
                    f"{name}.py (or import judge first)"
                )
            continue
        init = folder / "__init__.py"
        if not init.is_file():  # a partial copy of the project: leave the import system to it
            continue
        spec = importlib.util.spec_from_file_location(
            name, init, submodule_search_locations=[str(folder)]
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
