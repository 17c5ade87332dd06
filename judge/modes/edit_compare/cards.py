"""The card names the ``edit_compare`` mode plans with and aggregates by.

Shared by :mod:`judge.modes.edit_compare.mode` (the planner) and
:mod:`judge.modes.edit_compare.aggregate`, so neither imports the other for a name.

Example:
    >>> from judge.modes.edit_compare.cards import KIND, card_of
    >>> KIND, card_of("visual_quality")
    ('edit-pairwise', 'pair_visual_quality')
"""

from __future__ import annotations

KIND = "edit-pairwise"
"""The skill kind of the cards that ask one edit criterion of two edits."""

PREFIX = "pair_"
"""A criterion's card is ``PREFIX + criterion``."""


def card_of(criterion: str) -> str:
    """The card that asks ``criterion`` of two edits (``pair_<criterion>``)."""
    return PREFIX + criterion
