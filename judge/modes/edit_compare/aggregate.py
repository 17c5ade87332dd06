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
from judge.domain.result import Provenance, Usage
from judge.modes.compare.aggregate import criterion_result
from judge.modes.edit_compare.cards import card_of
from judge.modes.edit_compare.result import EditComparisonResult
from judge.modes.score.aggregate import safety_report


def aggregate(
    ctx: RunContext, outcomes: list[WorkOutcome], safety_out: SafetyOutcome | None
) -> EditComparisonResult:
    """Build the EditComparisonResult."""
    req, reg = ctx.request, ctx.registry
    report = safety_report(safety_out, ctx.settings.safety_on_error)
    versions = {card_of(name): reg.card(card_of(name)).version for name in req.criteria}
    if safety_out:
        versions.update(safety_out.skills)
    base = dict(
        comparison_id=ctx.request_id,
        prompt_id=req.prompt_id,
        models={"a": req.a.model, "b": req.b.model},
        safety=report,
        provenance=Provenance(
            judge_models=ctx.models,
            skills=dict(sorted(versions.items())),
            options=ctx.settings.public_options(),
        ),
        usage=Usage(**ctx.meter.snapshot()),
    )
    if report.passed is False:
        return EditComparisonResult(
            status="blocked",
            reason=f"blocked by the safety filter on {report.blocked_by}; nothing was compared",
            **base,
        )
    by_name: dict[str, list[WorkOutcome]] = {}
    for o in outcomes:
        by_name.setdefault(o.item.tag_map["criterion"], []).append(o)
    criteria = {}
    for name in req.criteria:
        card = card_of(name)
        criteria[name] = criterion_result(card, by_name.get(name, []), f"{card}@{versions[card]}")
    failures = sum(1 for c in criteria.values() if c.winner is None)
    undecided = safety_out is not None and safety_out.undecided
    return EditComparisonResult(
        status="partial" if failures or undecided else "scored",
        reason=f"{failures} criterion(s) could not be judged" if failures else None,
        criteria=criteria,
        **base,
    )
