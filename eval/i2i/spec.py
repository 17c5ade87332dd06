"""An edit backend entry (``[[editors]]`` of an edit-study file) and its loader.

An editor is configured exactly as a T2I backend (:class:`eval.t2i.BackendSpec`: ``id``,
``model``, ``api_base``, ``api_key_env``, ``size``, ``seed``, ``concurrency``, ``extra``,
``max_n``, ``timeout_s``, ``max_retries``, ``allow_private_urls``); only its model names an
image *editor*: any litellm model that serves ``/images/edits`` (``openai/gpt-image-1``,
``openai/dall-e-2``, ``gemini/gemini-2.5-flash-image``, ``stability/...``), an
OpenAI-compatible edit server by ``api_base`` (``model = "openai/<name>"``, ``POST
{api_base}/images/edits``), or a built-in demo editor (``builtin/editor``,
``builtin/no-edit``: NOT models; see :mod:`eval.i2i.builtin`).

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "editors.toml"
    >>> _ = p.write_text('[[editors]]\\nid = "demo"\\nmodel = "builtin/editor"\\n')
    >>> load_editors(p)["demo"].is_builtin
    True
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eval.t2i.spec import BackendSpec, load_backends, parse_backends
from registry import Registry


class EditorSpec(BackendSpec):
    """One edit backend: the fields of :class:`~eval.t2i.BackendSpec`, in-process editors from
    :data:`eval.i2i.builtin.EDITORS`."""

    @classmethod
    def builtin_models(cls) -> tuple[Registry[Any], str]:
        """The in-process editors (checked by :class:`~eval.t2i.BackendSpec`'s model check)."""
        from eval.i2i.builtin import EDITORS

        return EDITORS, "editor"


def parse_editors(entries: Any, where: str) -> dict[str, EditorSpec]:
    """Validate a list of ``[[editors]]`` tables; ids unique. Errors name ``where`` and the
    entry, e.g. ``study.toml: editors[1] (id 'x'): model: unknown built-in editor ...``."""
    return parse_backends(entries, where, spec_cls=EditorSpec, section="editors")  # type: ignore[return-value]  # returns spec_cls instances (not generic)


def load_editors(path: Path) -> dict[str, EditorSpec]:
    """Read a TOML file's ``[[editors]]`` entries, by id; errors name the file and the entry."""
    return load_backends(path, spec_cls=EditorSpec, section="editors")  # type: ignore[return-value]  # returns spec_cls instances (not generic)
