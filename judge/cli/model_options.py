"""Command-line options generated from a pydantic model: one source for each option's name,
type, default, choices, range and help.

:func:`add_model_options` adds one ``--kebab-name`` option per field of the model (its dest
is the field's name):

* the type is the field's (``int``, ``float``, ``str``, ``Path``; ``X | None`` is ``X``); a
  ``Literal`` or an ``Enum`` gives the choices;
* a ``bool`` is a flag that turns the default round: ``--name`` when it defaults to False,
  ``--no-name`` when it defaults to True;
* the help is the field's ``description``, then its range (``ge``/``gt``/``le``/``lt``, or the
  length bounds of a string) and its default.

Every option's argparse default is ``None``, so :func:`given` returns only what the user
typed and the model, when it validates them, supplies the defaults and checks the ranges (its
error names the field: :func:`flag_of` turns that into the flag). A field whose type is not a
single value (a list, a mapping, a model) must be left out with ``exclude``.

Example:
    >>> from typing import Literal
    >>> from pydantic import BaseModel, Field
    >>> class Opts(BaseModel):
    ...     max_depth: int = Field(default=3, ge=1, le=6, description="levels of the tree")
    ...     order: Literal["bfs", "dfs"] = Field(default="bfs", description="visiting order")
    ...     localise: bool = Field(default=True, description="localise each failure")
    >>> parser = argparse.ArgumentParser(prog="x")
    >>> names = add_model_options(parser, Opts)
    >>> given(parser.parse_args(["--max-depth", "2", "--no-localise"]), names)
    {'max_depth': 2, 'localise': False}
    >>> option_help(Opts.model_fields["max_depth"])
    'levels of the tree (1 to 6; default 3)'
    >>> flag_of("max_depth"), flag_of("localise", Opts)
    ('--max-depth', '--no-localise')
"""

from __future__ import annotations

import argparse
import enum
import types
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

import annotated_types as at
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

__all__ = ["add_model_options", "flag_of", "given", "option_help"]

_SCALARS = (int, float, str, Path)


def _plain(annotation: Any) -> Any:
    """The annotation without ``None`` (``int | None`` -> ``int``)."""
    if get_origin(annotation) in (Union, types.UnionType):
        rest = [a for a in get_args(annotation) if a is not type(None)]
        if len(rest) == 1:
            return rest[0]
    return annotation


def _is_bool(field: FieldInfo) -> bool:
    return _plain(field.annotation) is bool


def _range(field: FieldInfo) -> str:
    """The field's bounds in words: ``1 to 6``, ``above 0, at most 1``, ``1-300 characters``."""
    lo: object = None  # the bound's value, only ever printed
    hi: object = None
    low_open = high_open = False
    min_len = max_len = None
    for m in field.metadata:
        if isinstance(m, at.Ge):
            lo = m.ge
        elif isinstance(m, at.Gt):
            lo, low_open = m.gt, True
        elif isinstance(m, at.Le):
            hi = m.le
        elif isinstance(m, at.Lt):
            hi, high_open = m.lt, True
        elif isinstance(m, at.MinLen):
            min_len = m.min_length
        elif isinstance(m, at.MaxLen):
            max_len = m.max_length
    if min_len is not None or max_len is not None:
        if max_len is None:
            return f"at least {min_len} characters"
        return f"{min_len or 0}-{max_len} characters" if min_len else f"up to {max_len} characters"
    if lo is None and hi is None:
        return ""
    if lo is not None and hi is not None and not (low_open or high_open):
        return f"{lo} to {hi}"
    words = []
    if lo is not None:
        words.append(f"above {lo}" if low_open else f"at least {lo}")
    if hi is not None:
        words.append(f"below {hi}" if high_open else f"at most {hi}")
    return ", ".join(words)


def option_help(field: FieldInfo) -> str:
    """The help of a field's option: its description, range and default."""
    text = field.description or ""
    notes = [_range(field)] if _range(field) else []
    default = field.default
    if _is_bool(field):
        if default is True:
            text = f"{text}: on by default, this flag turns it off" if text else "turn it off"
        return text.replace("%", "%%")
    if default is not PydanticUndefined and default is not None:
        shown = default.value if isinstance(default, enum.Enum) else default
        notes.append(f"default {shown}")
    if notes:
        text = f"{text} ({'; '.join(notes)})" if text else "; ".join(notes)
    return text.replace("%", "%%")


def flag_of(name: str, model: type[BaseModel] | None = None) -> str:
    """The option of field ``name`` (``--no-name`` for a bool of ``model`` defaulting to
    True)."""
    kebab = name.replace("_", "-")
    field = model.model_fields.get(name) if model is not None else None
    if field is not None and _is_bool(field) and field.default is True:
        return f"--no-{kebab}"
    return f"--{kebab}"


def _option(field: FieldInfo) -> dict[str, Any]:
    """argparse keywords of one field's option."""
    kind = _plain(field.annotation)
    if kind is bool:
        return {"action": "store_false" if field.default is True else "store_true"}
    if get_origin(kind) is Literal:
        choices = list(get_args(kind))
        return {"type": type(choices[0]), "choices": choices}
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        metavar = "{" + ",".join(str(m.value) for m in kind) + "}"
        return {"type": kind, "choices": list(kind), "metavar": metavar}
    if kind in _SCALARS:
        return {"type": kind}
    raise TypeError(f"field type {field.annotation!r} has no single-value option; exclude it")


def add_model_options(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup,
    model: type[BaseModel],
    *,
    exclude: Iterable[str] = (),
) -> list[str]:
    """Add an option per field of ``model`` (but ``exclude``) to ``parser``; the field names
    added, in the model's order."""
    skip = set(exclude)
    names = []
    for name, field in model.model_fields.items():
        if name in skip:
            continue
        parser.add_argument(
            flag_of(name, model), dest=name, default=None, help=option_help(field),
            **_option(field),
        )  # fmt: skip
        names.append(name)
    return names


def given(args: argparse.Namespace, names: Iterable[str]) -> dict[str, Any]:
    """``{field: value}`` of the options among ``names`` that were given."""
    return {n: getattr(args, n) for n in names if getattr(args, n, None) is not None}
