"""Aggregation for the ``score`` mode: outcomes into the Result contract
(docs/design.md#submission-and-result-mode-score).

Subjective scores are kept per dimension and modality; checkpoint verdicts become
``rate = 100 * passed / scored``; unscored items are counted and excluded. Unscored
values caused by a failure make the result ``partial``; ones that are by design (cause
``not_applicable``: no image submitted, no subjective image scores for imitation tasks) do not.
"""

from __future__ import annotations

from judge.agent.context import RunContext
from judge.agent.work import SafetyOutcome, WorkOutcome
from judge.calibration import Calibration
from judge.confidence.attach import item_fields
from judge.domain.dependencies import apply_dependencies
from judge.domain.result import (
    CheckItem,
    DimensionScore,
    ExemplarRef,
    ImageResult,
    ObjectiveSide,
    Provenance,
    Result,
    SafetyReport,
    SafetyVerdict,
    Selection,
    Status,
    Usage,
    cause_value,
)
from judge.modes.score.planning import subjective_cards
from judge.modes.score.selection import select, selection_key
from skills.kinds import scores_dimensions
from skills.types import Cause, SafetyValue

NO_IMAGE = "no image submitted"
NOT_FOR_IM = "not scored for imitation (IM) tasks: the image is checked against the target"
NA = Cause.NOT_APPLICABLE
NA_CAUSE = cause_value(NA)


def _verdict(v: SafetyValue | None) -> SafetyVerdict | None:
    if v is None:
        return None
    return SafetyVerdict(
        passed=v.passed,
        categories=v.categories,
        rationale=v.rationale,
        reason=v.reason,
        cause=cause_value(v.cause),
    )


def run_record(
    ctx: RunContext, versions: dict[str, str], memories: dict[str, str] | None = None
) -> dict[str, Provenance | Usage]:
    """What every mode's result says of its run: ``provenance`` (judge models, card
    versions, memories, public options) and ``usage`` (the run's meter so far)."""
    provenance = Provenance(
        judge_models=ctx.models,
        skills=dict(sorted(versions.items())),
        memories=dict(sorted((memories or {}).items())),
        options=ctx.settings.public_options(),
        confidence=ctx.settings.confidence,
    )
    return {"provenance": provenance, "usage": Usage(**ctx.meter.snapshot())}


def safety_report(out: SafetyOutcome | None, on_error: str = "unknown") -> SafetyReport:
    """The Result's safety block: the prompt verdict, the worst image, every image.

    A filter that could not run is never read as passed: with ``on_error="unknown"`` (the
    default) ``passed`` is null and the result partial; with ``"block"`` the gate fails
    closed (``passed`` false, ``blocked_by`` the target that could not be screened).
    """
    if out is None:
        return SafetyReport(passed=True)
    images = [_verdict(v) for _, v in out.others()]
    worst = (
        next((v for v in images if v and v.passed is False), None)
        or next((v for v in images if v and v.passed is None), None)
        or (images[0] if images else None)
    )
    blocked_by = out.blocked_by
    passed: bool | None = blocked_by is None
    if blocked_by is None and out.undecided:
        if on_error == "block":
            passed = False
            blocked_by = next(k for k, v in out.verdicts.items() if v.passed is None)
        else:
            passed = None
    return SafetyReport(
        passed=passed,
        prompt=_verdict(out.prompt),
        image=worst,
        images=[v for v in images if v is not None],
        blocked_by=blocked_by,
    )


def blocked_reason(report: SafetyReport, out: SafetyOutcome | None, noun: str = "scored") -> str:
    """Why a result is blocked: the flagged categories, or the filter that could not run."""
    target = report.blocked_by or "?"
    verdict = out.verdicts.get(target) if out is not None else None
    if verdict is not None and verdict.passed is None:
        return (
            f"the {target} safety filter could not run ({verdict.reason or 'no reason given'}) "
            f"and JUDGE_SAFETY_ON_ERROR=block fails closed; nothing was {noun}"
        )
    cats = ", ".join(verdict.categories if verdict else []) or "unspecified"
    return f"blocked by the {target} safety filter ({cats}); nothing was {noun}"


def _subjective(
    ctx: RunContext, outcomes: list[WorkOutcome], skills: dict[str, str], cal: Calibration | None
) -> dict[str, DimensionScore]:
    scores: dict[str, DimensionScore] = {}
    for o in outcomes:
        for dim, v in o.output.scores.items():
            calibrated = cal is not None and v.score is not None and dim in cal.maps
            scores[dim] = DimensionScore(
                score=cal.apply(dim, v.score)
                if calibrated and cal is not None and v.score is not None
                else v.score,
                raw_score=v.score if calibrated else None,
                rationale=v.rationale,
                reason=v.reason,
                cause=cause_value(v.cause),
                skill=skills.get(f"{o.item.skill}:{dim}", skills[o.item.skill]),
                exemplars=[
                    ExemplarRef(id=e.id, similarity=e.similarity) for e in o.output.exemplars
                ],
                votes=o.votes_scores.get(dim),
                agreement=o.agreement.get(dim),
                **item_fields(ctx, [o], dim, v.score),
            )
    return scores


def _checks(
    ctx: RunContext,
    outcomes: list[WorkOutcome],
    order: dict[str, int],
    prims: dict[str, str],
    parents: dict[str, str | None] | None = None,
) -> list[CheckItem]:
    items = [
        CheckItem(
            id=cid,
            verdict=v.verdict,
            rationale=v.rationale,
            reason=v.reason,
            cause=cause_value(v.cause),
            primitive=prims.get(cid),
            votes=o.votes_verdicts.get(cid),
            agreement=o.agreement.get(cid),
            **item_fields(ctx, [o], cid, v.verdict),
        )
        for o in outcomes
        for cid, v in o.output.verdicts.items()
    ]
    if parents and any(parents.values()):
        items = _with_dependencies(items, parents)
    return sorted(items, key=lambda c: order.get(c.id, 1 << 30))


def _with_dependencies(items: list[CheckItem], parents: dict[str, str | None]) -> list[CheckItem]:
    """A passed checkpoint whose parent (or an ancestor) failed counts as failed."""
    verdicts = apply_dependencies(
        [{"id": k, "parent": v} for k, v in parents.items()], {i.id: i.verdict for i in items}
    )
    return [
        i.model_copy(
            update={
                "verdict": False,
                "reason": f"counted as failed: its parent checkpoint {parents[i.id]!r} "
                "(or an ancestor) failed",
            }
        )
        if i.verdict is True and verdicts.get(i.id) is False
        else i
        for i in items
    ]


def _failures(result_parts: list[dict[str, DimensionScore] | ObjectiveSide]) -> int:
    """Unscored values whose cause is not by design."""
    n = 0
    for part in result_parts:
        values = part.items if isinstance(part, ObjectiveSide) else list(part.values())
        n += sum(1 for v in values if v.cause is not None and v.cause != Cause.NOT_APPLICABLE)
    return n


def aggregate(
    ctx: RunContext, outcomes: list[WorkOutcome], safety_out: SafetyOutcome | None
) -> Result:
    """Build the Result for this submission."""
    sub, reg = ctx.submission, ctx.registry
    category = sub.task.category.value
    report = safety_report(safety_out, ctx.settings.safety_on_error)
    versions = {}
    for c in (reg.card(o.item.skill) for o in outcomes):  # combined cards list their members
        versions.update(
            {m.name: m.version for m in map(reg.card, c.members)}
            if c.members
            else {c.name: c.version}
        )
    if safety_out:
        versions.update(safety_out.skills)
    tags = {name: f"{name}@{v}" for name, v in versions.items()}
    for o in outcomes:  # a dimension of a combined card is credited to its member card
        card = reg.card(o.item.skill)
        tags.setdefault(o.item.skill, card.version)
        for m in map(reg.card, card.members):
            for d in m.dimension_names:
                tags[f"{o.item.skill}:{d}"] = f"{m.name}@{m.version}"
    base = dict(
        submission_id=ctx.request_id,
        task_id=sub.task.id,
        category=category,
        safety=report,
        **run_record(ctx, versions, ctx.exemplars.used if ctx.exemplars else None),
    )
    if report.passed is False:
        return Result(status="blocked", reason=blocked_reason(report, safety_out), **base)

    order = {cp.id: k for k, cp in enumerate(sub.task.checklist)}
    prims = {cp.id: cp.primitive.value for cp in sub.task.checklist}
    parents = {cp.id: cp.parent for cp in sub.task.checklist}
    kind = {o.item.skill: reg.card(o.item.skill).kind for o in outcomes}
    subj = [o for o in outcomes if scores_dimensions(kind[o.item.skill])]
    objs = [o for o in outcomes if kind[o.item.skill] == "objective-checklist"]

    prompt_subj = _subjective(
        ctx, [o for o in subj if o.item.modality == "prompt"], tags, ctx.calibration
    )
    prompt_obj = ObjectiveSide.from_items(
        _checks(ctx, [o for o in objs if o.item.modality == "prompt"], order, prims, parents)
    )

    images: list[ImageResult] = []
    rule = ctx.settings.selection_rule
    for i in range(len(sub.images)):
        isub = _subjective(ctx, [o for o in subj if o.item.image == i], tags, ctx.calibration)
        iobj = ObjectiveSide.from_items(
            _checks(ctx, [o for o in objs if o.item.image == i], order, prims, parents)
        )
        images.append(
            ImageResult(
                index=i,
                subjective=isub,
                objective=iobj,
                safety=report.images[i] if i < len(report.images) else None,
                selection_key=selection_key(rule, iobj, isub),
            )
        )

    if images:
        chosen = select([im.selection_key for im in images], rule)
        image_subj, image_obj = images[chosen].subjective, images[chosen].objective
    else:
        chosen = None
        image_subj = {
            d: DimensionScore(reason=NO_IMAGE, cause=NA_CAUSE, skill=f"{c.name}@{c.version}")
            for c in subjective_cards(reg, ctx.settings.skills, "image", category)
            for d in c.dimension_names
        }
        image_obj = ObjectiveSide.from_items(
            [
                CheckItem(id=cp.id, reason=NO_IMAGE, cause=NA_CAUSE, primitive=cp.primitive.value)
                for cp in sub.task.checklist
                if cp.image_check
            ],
            reason=NO_IMAGE,
        )
    for card in subjective_cards(reg, ctx.settings.skills, "image"):
        if category not in card.categories:
            for d in card.dimension_names:
                image_subj = {
                    **image_subj,
                    d: DimensionScore(
                        reason=NOT_FOR_IM, cause=NA_CAUSE, skill=f"{card.name}@{card.version}"
                    ),
                }

    failures = _failures(
        [prompt_subj, prompt_obj, *[p for im in images for p in (im.subjective, im.objective)]]
    )
    undecided = safety_out is not None and safety_out.undecided
    status: Status = "partial" if failures or undecided else "scored"
    result = Result(
        status=status,
        subjective={"prompt": prompt_subj, "image": image_subj},
        objective={"prompt": prompt_obj, "image": image_obj},
        images=images if len(images) > 1 else [],
        selected_image=chosen,
        selection=Selection(rule=rule, n=len(images), keys=[im.selection_key for im in images])
        if len(images) > 1
        else None,
        reason=f"{failures} item(s) could not be scored" if failures else None,
        **base,
    )
    return result
