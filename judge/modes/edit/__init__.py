"""The ``edit`` mode (DESIGN.md §10): instruction following, consistency, quality, shifts."""

from judge.modes import register_mode
from judge.modes.edit.mode import EditMode

MODE = register_mode(EditMode())
