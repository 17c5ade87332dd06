"""The lowest floor's own environment (``JUDGE_*``): where user data lives and how many
threads a FAISS search uses. The one reader of those variables (every package may import it).

``JUDGE_DATA_DIR`` and ``JUDGE_MEMORY_DIR`` are not here: they belong to the service's and the
engine's settings (``docs/configuration.md``); :func:`memory.paths.user_data_dir` follows them.

Example:
    >>> DataSettings(faiss_threads=2).faiss_threads
    2
"""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class DataSettings(BaseSettings):
    """Where user data goes and the FAISS thread count."""

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
