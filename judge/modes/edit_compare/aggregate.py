"""Aggregation for ``edit_compare``: the compare mode's, per edit criterion (both orders agree
→ that winner; they disagree → a tie with ``position_consistent: false``; an order unscored →
the criterion unscored with the reason).

Example:
    >>> from judge.modes.compare.aggregate import map_choice
    >>> map_choice("first", first="b")
    'b'
"""

from __future__ import annotations

from judge.agent.context import RunContext
from judge.agent.work import SafetyOutcome, WorkOutcome
from judge.modes.compare.aggregate import aggregate_pair
from judge.modes.edit_compare.cards import card_of
from judge.modes.edit_compare.result import EditComparisonResult


def aggregate(
    ctx: RunContext, outcomes: list[WorkOutcome], safety_out: SafetyOutcome | None
) -> EditComparisonResult:
    """Build the EditComparisonResult (each criterion asked by its ``pair_`` card)."""
    return aggregate_pair(ctx, outcomes, safety_out, EditComparisonResult, card_of)
