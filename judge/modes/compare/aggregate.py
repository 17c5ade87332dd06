"""Aggregation for ``compare``: map each order's positional answer back to a/b.

Per criterion: both orders agree → that winner, ``position_consistent: true``; they
disagree → ``tie`` with ``position_consistent: false`` (a position-biased judge, one that
always picks whichever image it sees first, can never produce a winner); either order
unscored → the criterion is unscored (``winner: null`` with the cause and reason).

Example:
    >>> map_choice("first", first="b"), map_choice("second", first="b"), map_choice("tie", "a")
    ('b', 'a', 'tie')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from judge.agent.context import RunContext
from judge.agent.work import SafetyOutcome, WorkOutcome
from judge.confidence.attach import item_fields, position_mapper
from judge.domain.result import cause_value
from judge.modes.compare.result import ComparisonResult, CriterionResult, OrderAnswer
from judge.modes.score.aggregate import run_record, safety_report
from skills.types import Cause, ChoiceValue

OTHER = {"a": "b", "b": "a"}
R = TypeVar("R", bound=ComparisonResult)


def map_choice(choice: str, first: str) -> str:
    """A positional answer (``first``/``second``/``tie``) as a contender (``a``/``b``/``tie``)."""
    if choice == "first":
        return first
    if choice == "second":
        return OTHER[first]
    return "tie"


def criterion_result(
    name: str, outcomes: list[WorkOutcome], skill: str, ctx: RunContext | None = None
) -> CriterionResult:
    """One criterion's verdict from its two orders' outcomes (the answers keyed ``name``);
    with ``ctx``, its confidence when the settings ask for one."""
    result = _verdict(name, outcomes, skill)
    if ctx is None or ctx.settings.confidence is None:
        return result
    conf = item_fields(ctx, outcomes, name, result.winner, position_mapper(map_choice))
    return result.model_copy(update=conf)


def _verdict(name: str, outcomes: list[WorkOutcome], skill: str) -> CriterionResult:
    orders: list[OrderAnswer] = []
    failed: ChoiceValue | None = None
    for o in sorted(outcomes, key=lambda o: o.item.tag_map["first"]):  # a-first, then b-first
        first = o.item.tag_map["first"]
        value = o.output.choices.get(name) or ChoiceValue.unscored(Cause.FAILED, "no answer")
        mapped = map_choice(value.choice, first) if value.choice is not None else None
        if mapped is None and failed is None:
            failed = value
        orders.append(
            OrderAnswer(
                first=first,  # type: ignore[arg-type]  # tag values are 'a'/'b', mapped choices the Literal
                choice=mapped,  # type: ignore[arg-type]  # tag values are 'a'/'b', mapped choices the Literal
                rationale=value.rationale,
                reason=value.reason,
                votes=o.votes_choices.get(name),
                agreement=o.agreement.get(name),
            )
        )
    if failed is not None or len(orders) != 2:
        why = failed.reason if failed else "an order is missing"
        cause = failed.cause if failed and failed.cause else Cause.FAILED
        return CriterionResult(orders=orders, reason=why, cause=cause_value(cause), skill=skill)
    one, two = orders[0].choice, orders[1].choice
    if one == two:
        return CriterionResult(
            winner=one,
            position_consistent=True,
            orders=orders,
            rationale=orders[0].rationale,
            skill=skill,
        )
    return CriterionResult(
        winner="tie",
        position_consistent=False,
        orders=orders,
        rationale=(
            f"the answers depend on the order (a first: {one}; b first: {two}), "
            "so the criterion counts as a tie"
        ),
        skill=skill,
    )


def aggregate(
    ctx: RunContext, outcomes: list[WorkOutcome], safety_out: SafetyOutcome | None
) -> ComparisonResult:
    """Build the ComparisonResult."""
    return aggregate_pair(ctx, outcomes, safety_out, ComparisonResult)


def aggregate_pair(
    ctx: RunContext,
    outcomes: list[WorkOutcome],
    safety_out: SafetyOutcome | None,
    result_model: type[R],
    card_of: Callable[[str], str] = str,
) -> R:
    """A pairwise result (``compare``'s or ``edit_compare``'s): the safety gate, then one
    verdict per requested criterion, asked by the card ``card_of(criterion)``."""
    req, reg = ctx.request, ctx.registry
    report = safety_report(safety_out, ctx.settings.safety_on_error)
    cards = {name: card_of(name) for name in req.criteria}
    versions = {card: reg.card(card).version for card in cards.values()}
    if safety_out:
        versions.update(safety_out.skills)
    base = dict(
        comparison_id=ctx.request_id,
        prompt_id=req.prompt_id,
        models={"a": req.a.model, "b": req.b.model},
        safety=report,
        **run_record(ctx, versions),
    )
    if report.passed is False:
        return result_model(
            status="blocked",
            reason=f"blocked by the safety filter on {report.blocked_by}; nothing was compared",
            **base,
        )
    by_name: dict[str, list[WorkOutcome]] = {}
    for o in outcomes:
        by_name.setdefault(o.item.tag_map["criterion"], []).append(o)
    criteria = {
        name: criterion_result(card, by_name.get(name, []), f"{card}@{versions[card]}", ctx)
        for name, card in cards.items()
    }
    failures = sum(1 for c in criteria.values() if c.winner is None)
    undecided = safety_out is not None and safety_out.undecided
    return result_model(
        status="partial" if failures or undecided else "scored",
        reason=f"{failures} criterion(s) could not be judged" if failures else None,
        criteria=criteria,
        **base,
    )
