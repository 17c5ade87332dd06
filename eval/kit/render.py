"""Reports rendered from templates: a workflow's report model (pydantic) goes into a Jinja2
template kept as data in the ``templates/`` folder beside the workflow's report module.

Markdown templates are rendered as written: no escaping, a block tag's line leaves no trace
(``trim_blocks``, ``lstrip_blocks``), the file's last newline is kept, and an unknown name is
an error (``StrictUndefined``). Every template may import the macros of
``eval/kit/templates/markdown.md.j2`` (a Markdown table from a :class:`Table`).

Example:
    >>> print(render_text("{% from 'markdown.md.j2' import table %}{{ table(t) }}{##}",
    ...     t=Table(head=["a", "b"], rows=[["1", "2"]])), end="")
    | a | b |
    |---|---|
    | 1 | 2 |
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jinja2
from pydantic import BaseModel


class Table(BaseModel):
    """A Markdown table: its head and its rows of cells, each cell already text; ``align``
    is each column's rule (``---``, or ``---:`` for a right-aligned column), all ``---`` when
    empty."""

    head: list[str]
    rows: list[list[str]]
    align: list[str] = []


@cache
def environment(package: str | None = None) -> jinja2.Environment:
    """The Markdown environment of ``package``'s ``templates/`` folder (and the kit's)."""
    loaders: list[jinja2.BaseLoader] = [jinja2.PackageLoader("eval.kit", "templates")]
    if package is not None:
        loaders.insert(0, jinja2.PackageLoader(package, "templates"))
    return jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=False,  # Markdown, not HTML
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )


def render(package: str, name: str, **context: Any) -> str:
    """Render ``package``'s template ``name`` with ``context``."""
    return environment(package).get_template(name).render(**context)


def render_text(source: str, **context: Any) -> str:
    """Render a template given as text (the kit's macros importable)."""
    return environment().from_string(source).render(**context)
