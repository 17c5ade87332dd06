"""The settings vocabulary of the engine's floor: :mod:`memory.config_env`, re-exported.

The machinery lives on the lowest floor so that the memory's and the skills' settings models
derive from the same :class:`ProjectSettings` (renamed variables warn the same way there).

Example:
    >>> from judge.config_env import ProjectSettings, renamed
    >>> renamed("JUDGE_OLD")
    {'deprecated_env': ['JUDGE_OLD']}
"""

from __future__ import annotations

from memory.config_env import (
    DEPRECATED_KEY,
    READ_BELOW_KEY,
    CommaList,
    OwnVariables,
    ProjectSettings,
    RenamedVariables,
    deprecated_names,
    env_names,
    read_below,
    reader_below,
    renamed,
    settings_error,
    split_commas,
)

__all__ = [
    "DEPRECATED_KEY",
    "READ_BELOW_KEY",
    "CommaList",
    "OwnVariables",
    "ProjectSettings",
    "RenamedVariables",
    "deprecated_names",
    "env_names",
    "read_below",
    "reader_below",
    "renamed",
    "settings_error",
    "split_commas",
]
