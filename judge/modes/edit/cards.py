"""The card names the edit mode plans with and aggregates by.

Shared by :mod:`judge.modes.edit.mode` (the planner) and :mod:`judge.modes.edit.aggregate`
so neither imports the other for two strings.

Example:
    >>> from judge.modes.edit.cards import CRITERION_KIND, METRICS_CARD
    >>> CRITERION_KIND, METRICS_CARD
    ('edit-rubric', 'shift_metrics')
"""

from __future__ import annotations

CRITERION_KIND = "edit-rubric"
"""The skill kind of a criterion card: one judge item per edited image and sample."""

METRICS_CARD = "shift_metrics"
"""The card of the locally computed shift metrics: one item per edited image."""
