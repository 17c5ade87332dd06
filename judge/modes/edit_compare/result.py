"""The result of an edit comparison: a ComparisonResult (per criterion a winner when both
orders agree, else a tie) marked ``mode: edit_compare``.

Example:
    >>> EditComparisonResult(comparison_id="c", status="scored").mode
    'edit_compare'
"""

from __future__ import annotations

from typing import Literal

from judge.modes.compare.result import ComparisonResult


class EditComparisonResult(ComparisonResult):
    """What the judge returns for two edits of one source."""

    mode: Literal["edit_compare"] = "edit_compare"  # type: ignore[assignment]  # narrows the parent's mode Literal
