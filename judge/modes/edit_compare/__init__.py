"""The ``edit_compare`` mode (docs/edit.md#two-edits-compared): two edits of one source and
one instruction, each edit criterion asked in both orders."""

from judge.modes.edit_compare.mode import EditCompareMode

MODE = EditCompareMode()
