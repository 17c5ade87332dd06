"""Where user data lives on disk (memories you build, the service's data, run outputs).

This sits on the lowest floor so that every package (memory, skills, the engine, the service,
the workflows) finds the same folders without importing upward; :mod:`judge.config` re-exports
it. Nothing is ever written inside the installed package.
"""

from __future__ import annotations

import os
from pathlib import Path

from memory.settings import DataSettings

APP_DIR = "t2i-judge"


def data_home() -> Path:
    """Where user data goes: ``$JUDGE_HOME``, else ``$XDG_DATA_HOME/t2i-judge``, else
    ``~/.local/share/t2i-judge``. Nothing is ever written inside the installed package.

    Example:
        >>> import os; os.environ["JUDGE_HOME"] = "/tmp/jh"
        >>> str(data_home()), str(user_data_dir("runs"))
        ('/tmp/jh', '/tmp/jh/runs')
        >>> del os.environ["JUDGE_HOME"]
    """
    env = DataSettings().home
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")  # the XDG base directory spec's, not ours
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share"
    return base / APP_DIR


USER_DIRS = {"service": "JUDGE_DATA_DIR", "memories": "JUDGE_MEMORY_DIR", "runs": None}
"""Sub-folders of :func:`data_home` and the variable that overrides each one."""


def user_data_dir(kind: str) -> Path:
    """One folder of user data: ``service`` (the service's Redis and uploaded exemplar
    images; ``JUDGE_DATA_DIR``), ``memories`` (memories you build; ``JUDGE_MEMORY_DIR``) or
    ``runs`` (meta-evaluation outputs)."""
    env = USER_DIRS[kind]  # JUDGE_DATA_DIR -> DataSettings.data_dir, and so on
    value = getattr(DataSettings(), env.removeprefix("JUDGE_").lower()) if env else None
    return Path(value).expanduser() if value else data_home() / kind
