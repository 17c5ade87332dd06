"""The one reader of ``JUDGE_BACKENDS``: the TOML file of ``[[backends]]`` (image models
under test) that ``judge probe``, the service's ``/v1/probes`` and its workers use.

Example:
    >>> import os; os.environ["JUDGE_BACKENDS"] = " backends.toml "
    >>> backends_file()
    'backends.toml'
    >>> del os.environ["JUDGE_BACKENDS"]; backends_file() is None
    True
"""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from judge.config_env import ProjectSettings


class BackendsSettings(ProjectSettings):
    """Where the image backends are defined (``JUDGE_BACKENDS``)."""

    model_config = SettingsConfigDict(env_prefix="JUDGE_", extra="ignore")

    backends: str | None = Field(
        default=None,
        description="TOML file of [[backends]] entries (id, model, ...): the image models that "
        "probes may name (docs/probing.md); unset: none but model strings on the CLI",
    )


def backends_file() -> str | None:
    """The path ``JUDGE_BACKENDS`` names, stripped; None when unset or blank."""
    path = (BackendsSettings().backends or "").strip()
    return path or None
