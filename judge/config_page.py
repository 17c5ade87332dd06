"""The configuration reference page (``docs/configuration.md``), generated from the settings
models: every variable with its type, default, description, the processes that read it and
its old names. A test regenerates the page and fails when the committed one is stale.

The list of models lives with the service, the top floor that knows every process
(:func:`api.configuration.reference_sections`); run after changing a settings model::

    python -m api.configuration docs/configuration.md            # write the page
    python -m api.configuration docs/configuration.md --check    # exit 1 when it is stale

Example:
    >>> from judge.config import JudgeSettings
    >>> page = render([Section("Engine", JudgeSettings, "every process that judges")])
    >>> "| `JUDGE_IMAGE_MAX_BYTES` | integer | `20971520` |" in page
    True
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import SecretStr
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined
from pydantic_settings import BaseSettings

from judge.config_env import deprecated_names, env_names, reader_below

HEADER = """\
# Configuration reference

<!-- Generated from the settings models by `python -m api.configuration
docs/configuration.md`; a test fails when this page is stale. Do not edit by hand. -->

Every environment variable the judge, the service, its workers and probes read, grouped by the
settings model that reads it; each variable is read by exactly one model. Flags and
per-request options beat these variables, which beat the defaults (see
[the service](service.md) for the service's options and [the quick start](quickstart.md) for
the CLI's flags).

- Lists are comma-separated (`JUDGE_SERVE_API_KEYS=k1,k2`); booleans are `true`/`false` (`1`/`0`,
  `yes`/`no` work too); objects are JSON (`JUDGE_EXCLUDE_EXEMPLARS='{"prompt_id": "p01"}'`).
- Names are not case-sensitive. A `JUDGE_*` variable that nothing reads (a misspelt name,
  `JUDGE_MODLE`) is named with a warning when a `judge` command starts, with the nearest
  known name; it is otherwise ignored.
- A value that does not parse stops the command (exit 2) with the setting, its value and the
  problem; `judge serve` and `judge worker` check every section below when they start and
  name the variable.
- An **old name** (last column) still works, with a warning that names the new one; when
  both are set the new name wins. Rename it: old names will go. The service's variables were
  `JUDGE_<NAME>`, the engine's prefix, until they moved under `JUDGE_SERVE_`.
"""

FOOTER = """\
## Read by name, outside these models

- Variables that a flag names: `--admin-key-env NAME` of the `judge campaign` and
  `judge study` commands that talk to a service (default `JUDGE_ADMIN_KEY`), `api_key_env` of
  a backend or prompter entry (a provider's own variable, e.g. `OPENAI_API_KEY`).
- Other tools' variables: the providers' keys that litellm reads, `XDG_DATA_HOME` (under
  `JUDGE_HOME`'s default), the proxy variables (`HTTPS_PROXY`, ...; with one set, model calls
  go through litellm's own client). The CLI and the engine set
  `LITELLM_LOCAL_MODEL_COST_MAP=True` before litellm is imported (no price map is fetched),
  and `judge serve` sets `PROMETHEUS_MULTIPROC_DIR` and `JUDGE_SERVE_INLINE_WORKERS` for the
  processes it starts.
"""

_SIMPLE = {bool: "boolean", int: "integer", float: "number", str: "text", Path: "path",
           SecretStr: "secret text"}  # fmt: skip


@dataclass(frozen=True)
class Section:
    """One settings model on the page: its title, the model, who reads it, a note."""

    title: str
    model: type[BaseSettings]
    read_by: str
    note: str = ""


def type_name(annotation: Any) -> str:
    """A reader's name for a field's type (``integer``, ``a / b``, ``list of text``, ...).

    Example:
        >>> type_name(int | None), type_name(typing.Literal["a", "b"]), type_name(list[str])
        ('integer', '`a` / `b`', 'list of text')
    """
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(type_name(a) for a in args if a is not type(None))
    if origin is typing.Literal:
        return " / ".join(f"`{a}`" for a in args)
    if origin is list:
        return f"list of {type_name(args[0])}"
    if origin is dict:
        return "JSON object"
    return _SIMPLE.get(annotation, getattr(annotation, "__name__", str(annotation)))


def default_text(field: FieldInfo) -> str:
    """The default as it would be written in the environment; computed ones say so."""
    if field.default_factory is not None:
        value = field.get_default(call_default_factory=True)
        return "empty" if value in ([], {}) else "computed (see description)"
    value = field.default
    if value is None or value is PydanticUndefined:
        return "unset"
    if value == "":
        return "empty"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def section_text(section: Section) -> str:
    """One section: a heading, who reads it, and a table of its variables."""
    model = section.model
    lines = [f"## {section.title}", "", f"Read by {section.read_by} (`{model.__module__}."
             f"{model.__name__}`).{' ' + section.note if section.note else ''}", "",
             "| Variable | Type | Default | Description | Old names |",
             "| --- | --- | --- | --- | --- |"]  # fmt: skip
    below = []
    for name, field in model.model_fields.items():
        if found := reader_below(field):
            below.append(f"`{name}` defaults to `{found[0]}` (`{found[1]}`)")
            continue
        names = env_names(model, name)
        variable = " or ".join(f"`{n}`" for n in names)
        old = ", ".join(f"`{n}`" for n in deprecated_names(field)) or "none"
        row = (variable, type_name(field.annotation), default_text(field),
               field.description or "", old)  # fmt: skip
        lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
    if below:
        lines += ["", "Read in its own section, on the floor below: " + "; ".join(below) + "."]
    return "\n".join(lines) + "\n"


def prefix_list(sections: Iterable[Section]) -> str:
    """Which prefix each section reads, one line each, for the top of the page.

    Example:
        >>> from judge.config import JudgeSettings
        >>> print(prefix_list([Section("Engine", JudgeSettings, "every process")]))
        Each section reads the variables under its own prefix; sections sharing a prefix never
        share a name:
        <BLANKLINE>
        - Engine: `JUDGE_*`
        <BLANKLINE>
    """
    lines = ["Each section reads the variables under its own prefix; sections sharing a prefix "
             "never\nshare a name:", ""]  # fmt: skip
    for s in sections:
        lines.append(f"- {s.title}: `{s.model.model_config.get('env_prefix') or ''}*`")
    return "\n".join(lines) + "\n"


def render(sections: Iterable[Section]) -> str:
    """The whole page."""
    sections = list(sections)
    parts = [HEADER, prefix_list(sections), *(section_text(s) for s in sections), FOOTER]
    return "\n".join(parts)


def variables(sections: Iterable[Section]) -> list[tuple[str, str]]:
    """``(variable, model name)`` for every name (old names too) of every section."""
    out = []
    for s in sections:
        for name, field in s.model.model_fields.items():
            if reader_below(field):  # listed by the model that reads it
                continue
            for variable in [*env_names(s.model, name), *deprecated_names(field)]:
                out.append((variable, s.model.__name__))
    return out


def main(argv: list[str], sections: Callable[[], list[Section]]) -> int:
    """Write the page to ``argv[0]``, or with ``--check`` exit 1 when it differs."""
    paths = [a for a in argv if a != "--check"]
    if len(paths) != 1:
        print("usage: python -m api.configuration PAGE.md [--check]")
        return 2
    path, text = Path(paths[0]), render(sections())
    if "--check" in argv:
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            print(f"{path} is stale: run `python -m api.configuration {path}` and commit it")
            return 1
        print(f"{path} is up to date")
        return 0
    path.write_text(text, encoding="utf-8")
    print(path)
    return 0
