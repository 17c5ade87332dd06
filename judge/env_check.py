"""Misspelt ``JUDGE_*`` variables, named once per process when a command starts.

The settings models read only the names they know and ignore the rest, so ``JUDGE_MODLE=...``
used to be dropped without a word and the judge run without a model. :func:`warn_unknown_variables`
logs one warning per unknown ``JUDGE_*`` name of the environment, with the nearest known name
(names are not case-sensitive, as the settings read them). The known names are every variable
of every settings model, old names included, and the few read by name elsewhere
(:func:`api.configuration.known_variables`; the ``judge`` command loads that list by name,
:data:`judge.cli.verbs.SETTINGS_REFERENCE`, and only when a ``JUDGE_*`` variable is set).

Example:
    >>> unknown_variables({"JUDGE_MODEL", "JUDGE_PANEL"}, {"JUDGE_MODLE": "x", "HOME": "/"})
    [('JUDGE_MODLE', 'JUDGE_MODEL')]
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Mapping

from registry import suggest

PREFIX = "JUDGE_"
log = logging.getLogger("judge.settings")
_warned = False


def unknown_variables(
    known: Iterable[str], environ: Mapping[str, str] | None = None
) -> list[tuple[str, str | None]]:
    """``(name as set, nearest known name or None)`` for every ``JUDGE_*`` variable of
    ``environ`` (default: the process's) that is not in ``known``, sorted by name."""
    environ = os.environ if environ is None else environ
    names = {k.upper() for k in known}
    out = []
    for name in sorted(environ):
        upper = name.upper()
        if upper.startswith(PREFIX) and upper not in names:
            near = suggest(upper, sorted(names), cutoff=0.75)
            out.append((name, near[0] if near else None))
    return out


def warning_text(name: str, near: str | None) -> str:
    """The one line said about an unknown variable.

    Example:
        >>> warning_text("JUDGE_SERVE_PROT", "JUDGE_SERVE_PORT")  # doctest: +ELLIPSIS
        'JUDGE_SERVE_PROT is not a variable the judge reads; did you mean JUDGE_SERVE_PORT? ...'
    """
    hint = f"did you mean {near}? " if near else ""
    return (f"{name} is not a variable the judge reads; {hint}(it is ignored; "
            "docs/configuration.md lists every variable)")  # fmt: skip


def warn_unknown_variables(known: Callable[[], Iterable[str]]) -> None:
    """Log a warning for each unknown ``JUDGE_*`` variable, the first time it is called in
    this process; ``known()`` (which may import every settings model) is called only when
    some ``JUDGE_*`` variable is set."""
    global _warned
    if _warned:
        return
    _warned = True
    if not any(k.upper().startswith(PREFIX) for k in os.environ):
        return
    for name, near in unknown_variables(known()):
        log.warning(warning_text(name, near))
