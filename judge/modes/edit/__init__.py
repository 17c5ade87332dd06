"""The ``edit`` mode: instruction following, consistency, quality, shifts
(docs/design.md#edit-submission-and-result)."""

from judge.modes.edit.mode import EditMode

MODE = EditMode()
