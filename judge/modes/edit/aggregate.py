"""Aggregation for ``edit``: samples averaged, calibration applied, success decided, the
best edited image selected.

Per edited image: each criterion's samples are averaged (unscored samples excluded);
a calibration map for the criterion (``--calibration``, fitted by ``judge meta-eval
--fit-calibration meanvar``: z-score matching to human ratings) is applied and the raw mean
kept; ``success.passed`` is true when every criterion reaches the threshold, false when one
scored below it, and null (with the reason) when one is unscored and none failed. The image
reported is the one with the best ``[passed, mean criterion score]``, lowest index on ties.

Example:
    >>> success_of({"a": 4.5, "b": 4.0}, [], 4.0).passed, success_of({"a": 3.0}, [], 4.0).passed
    (True, False)
"""

from __future__ import annotations

from judge.agent.context import RunContext
from judge.agent.work import SafetyOutcome, WorkOutcome
from judge.confidence.attach import item_fields
from judge.domain.result import DimensionScore, SafetyVerdict, Selection, cause_value
from judge.modes.edit.cards import CRITERION_KIND, METRICS_CARD
from judge.modes.edit.result import EditImageResult, EditResult, MetricResult, Success
from judge.modes.score.aggregate import run_record, safety_report
from skills.types import Cause, ScoreValue

RULE = "success_then_mean_criterion"


def success_of(scores: dict[str, float], unscored: list[str], threshold: float) -> Success:
    """Every criterion ≥ threshold → passed; one below → failed; else undecided."""
    low = sorted(n for n, v in scores.items() if v < threshold)
    if low:
        return Success(threshold=threshold, passed=False, reason=f"below {threshold}: {low}")
    if unscored:
        return Success(threshold=threshold, reason=f"unscored: {sorted(unscored)}")
    return Success(threshold=threshold, passed=True)


def _criterion(ctx: RunContext, name: str, outs: list[WorkOutcome], skill: str) -> DimensionScore:
    values: list[ScoreValue] = []
    for o in sorted(outs, key=lambda o: int(o.item.tag_map.get("sample", "0"))):
        values.append(o.output.scores.get(name) or ScoreValue.unscored(Cause.FAILED, "no answer"))
    got = [v for v in values if v.score is not None]
    scores = [float(v.score) for v in values if v.score is not None]
    if not got:
        first = values[0] if values else ScoreValue.unscored(Cause.FAILED, "not run")
        return DimensionScore(reason=first.reason, cause=cause_value(first.cause), skill=skill)
    mean = round(sum(scores) / len(scores), 3)
    cal = ctx.calibration
    calibrated = cal is not None and name in cal.maps
    votes = {f"sample{k}": v.score for k, v in enumerate(values)} if len(values) > 1 else None
    return DimensionScore(
        score=round(cal.apply(name, mean), 3) if cal is not None and calibrated else mean,
        raw_score=mean if calibrated else None,
        rationale=got[0].rationale,
        skill=skill,
        votes=votes,
        **item_fields(ctx, outs, name, mean),
    )


def _image(
    ctx: RunContext,
    i: int,
    outcomes: list[WorkOutcome],
    safety: dict[str, SafetyVerdict],
    tags: dict[str, str],
) -> EditImageResult:
    mine = [o for o in outcomes if o.item.image == i]
    metrics: dict[str, MetricResult] = {}
    by_card: dict[str, list[WorkOutcome]] = {}
    for o in mine:
        if o.item.skill == METRICS_CARD:
            metrics = {k: MetricResult(**v) for k, v in o.output.metrics.items()}
        else:
            by_card.setdefault(o.item.skill, []).append(o)
    criteria = {}
    for card in ctx.registry.cards(kind=CRITERION_KIND):
        for dim in card.dimension_names:
            criteria[dim] = _criterion(ctx, dim, by_card.get(card.name, []), tags[card.name])
    scores = {n: float(d.score) for n, d in criteria.items() if d.score is not None}
    unscored = [n for n, d in criteria.items() if d.score is None]
    success = success_of(scores, unscored, ctx.settings.edit_success_threshold)
    mean = sum(scores.values()) / len(scores) if scores else 0.0
    key = [1.0 if success.passed else 0.0, round(mean, 4)]
    return EditImageResult(
        index=i,
        criteria=criteria,
        success=success,
        metrics=metrics,
        safety=safety.get(f"image[{i}]"),
        selection_key=key,
    )


def aggregate(
    ctx: RunContext, outcomes: list[WorkOutcome], safety_out: SafetyOutcome | None
) -> EditResult:
    """Build the EditResult."""
    req, reg = ctx.request, ctx.registry
    report = safety_report(safety_out, ctx.settings.safety_on_error)
    cards = [*reg.cards(kind=CRITERION_KIND), reg.card(METRICS_CARD)]
    versions = {c.name: c.version for c in cards}
    if safety_out:
        versions.update(safety_out.skills)
    tags = {name: f"{name}@{v}" for name, v in versions.items()}
    base = dict(
        submission_id=ctx.request_id,
        editor=req.editor,
        safety=report,
        **run_record(ctx, versions),
    )
    if report.passed is False:
        return EditResult(
            status="blocked",
            reason=f"blocked by the safety filter on {report.blocked_by}; nothing was judged",
            **base,
        )
    labels = [k for k, _ in safety_out.others()] if safety_out else []
    by_label = dict(zip(labels, report.images, strict=False))  # safety verdict per target
    images = [_image(ctx, i, outcomes, by_label, tags) for i in range(len(req.images))]
    chosen = max(range(len(images)), key=lambda i: (images[i].selection_key, -i))
    best = images[chosen]
    failures = sum(
        1
        for im in images
        for d in im.criteria.values()
        if d.cause is not None and d.cause != Cause.NOT_APPLICABLE
    )
    undecided = safety_out is not None and safety_out.undecided
    return EditResult(
        status="partial" if failures or undecided else "scored",
        reason=f"{failures} criterion value(s) could not be scored" if failures else None,
        criteria=best.criteria,
        success=best.success,
        metrics=best.metrics,
        images=images if len(images) > 1 else [],
        selected_image=chosen,
        selection=Selection(rule=RULE, n=len(images), keys=[im.selection_key for im in images])
        if len(images) > 1
        else None,
        **base,
    )
