"""The ``edit`` mode: instruction following, consistency, quality, shifts
(docs/design.md#edit-submission-and-result)."""

from judge.modes import register_mode
from judge.modes.edit.mode import EditMode

MODE = register_mode(EditMode())
