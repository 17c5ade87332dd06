"""The lowest floor's own environment (``JUDGE_*``): where user data lives and how many
threads a FAISS search uses. The one reader of those variables (every package may import it).

``JUDGE_MEMORY_DIR`` and ``JUDGE_DATA_DIR`` are read here, where the stores live; the engine's
``memory_dir`` and the service's ``data_dir`` take their defaults from them
(``docs/configuration.md``).

Example:
    >>> DataSettings(faiss_threads=2).faiss_threads
    2
"""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from memory.config_env import ProjectSettings


class DataSettings(ProjectSettings):
    """Where user data goes (the folders, the memory store, the service's data) and the FAISS
    thread count."""

    model_config = SettingsConfigDict(env_prefix="JUDGE_", extra="ignore")

    home: str | None = Field(
        default=None,
        description="where user data goes (memories you build, the service's data, runs); "
        "default: $XDG_DATA_HOME/t2i-judge, else ~/.local/share/t2i-judge",
    )
    faiss_threads: int = Field(
        default=1,
        description="threads of one FAISS search (set when memory.index is imported); "
        "builds use every core",
    )
    memory_dir: str | None = Field(
        default=None,
        description="exemplar store used alone (the engine's memory_dir); default: your store "
        "under JUDGE_HOME layered over the shipped read-only memories",
    )
    data_dir: str | None = Field(
        default=None,
        description="the service's private Redis and uploaded exemplar images (its data_dir); "
        "default: $JUDGE_HOME/service, i.e. ~/.local/share/t2i-judge/service",
    )
