"""Verbs that other packages add to the one ``judge`` command (entry points).

A package registers a verb with an entry point in the group ``t2i_judge.commands`` whose value
is a function taking argparse's sub-parsers object, like the functions of
:data:`judge.cli.commands.REGISTRY`::

    [project.entry-points."t2i_judge.commands"]
    serve = "api.cli:register"

The installed distributions' entry points are read with :mod:`importlib.metadata`. When this
package runs from a source checkout (an editable install or ``PYTHONPATH``), the checkout's own
``pyproject.toml`` is read too, so a verb added there works before the next ``pip install -e``.
A verb whose module cannot be imported is skipped with a message saying which and why; the
other verbs still work, and calling the missing one says what to install.

Example:
    >>> names = [ep.name for ep in discover()]
    >>> "serve" in names and "meta-eval" in names
    True
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

GROUP = "t2i_judge.commands"
DIST = "t2i-judge"


@dataclass(frozen=True)
class VerbEntry:
    """One registered verb module: ``name = "module:function"``."""

    name: str
    value: str

    def load(self) -> Callable[[argparse._SubParsersAction], None]:
        """Import the module and return its register function."""
        module, _, attr = self.value.partition(":")
        obj = importlib.import_module(module.strip())
        for part in attr.strip().split("."):
            obj = getattr(obj, part)
        return obj  # type: ignore[return-value]


def _checkout_entries() -> dict[str, str]:
    """Entry points declared by the source checkout this package was imported from."""
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    project = data.get("project", {})
    if project.get("name") != DIST:
        return {}
    return dict(project.get("entry-points", {}).get(GROUP, {}))


def discover() -> list[VerbEntry]:
    """Every registered verb, installed distributions first, the checkout's overriding."""
    found = {ep.name: ep.value for ep in metadata.entry_points(group=GROUP)}
    found.update(_checkout_entries())
    return [VerbEntry(name, value) for name, value in sorted(found.items())]


def register_all(sub: argparse._SubParsersAction) -> list[str]:
    """Add every discovered verb to ``sub``; return one message per verb that failed."""
    problems: list[str] = []
    for entry in discover():
        try:
            register = entry.load()
        except Exception as exc:  # a broken plug-in must not take the whole CLI down
            problem = (
                f"judge: the '{entry.name}' command is unavailable: importing "
                f"{entry.value} failed ({type(exc).__name__}: {exc}); reinstall the package "
                "that provides it (e.g. `pip install -e .` in the checkout)"
            )
            problems.append(problem)
            _placeholder(sub, entry.name, problem)
            continue
        register(sub)
    return problems


def _placeholder(sub: argparse._SubParsersAction, name: str, problem: str) -> None:
    """A verb that only explains why it cannot run (exit 2)."""
    if name in sub.choices:
        return
    p = sub.add_parser(name, help="(unavailable: see `judge " + name + "`)", add_help=False)
    p.add_argument("rest", nargs=argparse.REMAINDER)

    def explain(args: argparse.Namespace) -> int:
        print(problem, file=sys.stderr)
        return 2

    p.set_defaults(handler=explain)
