"""The campaign's ``report.md`` as a model: :class:`CampaignPage` holds every figure of the
page as text, :func:`page` builds it from the report dict
(:func:`eval.campaigns.report.build_report`) and the figures written beside it, and the
template ``eval/campaigns/templates/report.md.j2`` lays it out. A value the report lacks is
written as what it means, never as ``None`` (:func:`shown`).

Example:
    >>> shown(None), shown([0.1, 0.25]), shown(0.5), shown(None, "not computed")
    ('—', '0.1–0.25', '0.5', 'not computed')
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from eval.campaigns import demographics
from eval.kit.render import Table


def shown(value: Any, none: str = "—") -> str:
    """A report value as text: ``none`` for a missing value (never Python's ``None``), a
    ``[lo, hi]`` interval as ``lo–hi``."""
    if value is None:
        return none
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return f"{shown(value[0])}–{shown(value[1])}"
    return str(value)


def _alpha_line(alpha: dict[str, Any]) -> str:
    if alpha["value"] is None:
        return (f"Krippendorff's alpha ({alpha['level']}): not computed yet — no item has "
                f"two kept labels ({alpha['units']} units).")  # fmt: skip
    return (f"Krippendorff's alpha ({alpha['level']}): {alpha['value']} over "
            f"{alpha['units']} units.")  # fmt: skip


class Rate(BaseModel):
    """An agreement rate with its interval and the number of pairs behind it."""

    name: str
    rate: str
    ci95: str
    pairs: Any


def _rate(name: str, r: dict[str, Any]) -> Rate:
    rate = shown(r["rate"], "not computed (no pair to compare)")
    return Rate(name=name, rate=rate, ci95=shown(r["ci95"]), pairs=r["pairs"])


class JudgeSection(BaseModel):
    """Judge–human next to human–human agreement on the same items."""

    judged_by: str | None
    rule: str
    rates: list[Rate]


class MemorySection(BaseModel):
    """Judge–human agreement on held-out items before and after a memory."""

    memory: str
    held_out_items: Any
    rule: str
    rates: list[Rate]


class Progress(BaseModel):
    """Labels against the plan, items complete, annotators."""

    labels: Any
    target_votes: Any
    share: str
    items_complete: Any
    items: Any
    annotators: Any


class CampaignPage(BaseModel):
    """Everything ``report.md`` shows, as text (see the module docstring); ``figures`` maps
    a figure's name to its file beside the report."""

    campaign: str
    kind: str
    criterion: str
    progress: Progress
    alpha: str
    compared: str
    flagged: list[str]
    validation: Table | None
    has_models: bool
    groups: int
    notes: list[str]
    leaderboard: Table
    demographics: list[str] | None
    judge: JudgeSection | None
    memory: MemorySection | None
    trust: list[str] | None
    figures: dict[str, str]


def _validation(report: dict[str, Any]) -> Table | None:
    if not report.get("validation"):
        return None
    rows = [[name, *(x for k in ("kept", "flagged")
                     for x in (str(g[k]["answers"]), shown(g[k]["accuracy"], "no answers")))]
            for name, g in report["validation"].items()]  # fmt: skip
    head = ["kind", "kept: answers", "kept: right", "flagged: answers", "flagged: right"]
    return Table(head=head, rows=rows)


def _leaderboard(board: dict[str, Any]) -> Table:
    rows = [[str(m["rank"]), str(m["model"]), shown(m.get("score", m.get("mean"))),
             shown(m.get("ci95"), "one answer: no interval"), str(m.get("group", 0))]
            for m in board.get("models", [])]  # fmt: skip
    return Table(head=["rank", "model", "score", "95% CI", "group"], rows=rows)


def _judge(report: dict[str, Any]) -> JudgeSection | None:
    if "judge_agreement" not in report:
        return None
    ja = report["judge_agreement"]
    rates = [_rate(n.replace("_", "–"), ja[n]) for n in ("judge_human", "human_human")]
    return JudgeSection(judged_by=report.get("judged_by") or None, rule=ja["rule"], rates=rates)


def _memory(report: dict[str, Any]) -> MemorySection | None:
    if "judge_memory_agreement" not in report:
        return None
    ma = report["judge_memory_agreement"]
    rates = [_rate(n, ma[n]["judge_human"]) for n in ("before", "after")]
    return MemorySection(memory=repr(ma["memory"]), held_out_items=ma["held_out_items"],
                         rule=ma["rule"], rates=rates)  # fmt: skip


def page(report: dict[str, Any], figures: dict[str, str] | None = None) -> CampaignPage:
    """The page of a campaign report and the figures written beside it."""
    board, p = report.get("leaderboard") or {}, report["progress"]
    trust = None
    if report.get("trust"):
        from eval.trust.report import trust_lines

        trust = trust_lines(report["trust"])
    flagged = [
        f"{a['id']}: {'; '.join(a['reasons'])}" for a in report["annotators"] if a["flagged"]
    ]
    people = None
    if "demographics" in report:
        people = demographics.markdown_lines(report["demographics"])
    return CampaignPage(
        campaign=str(report["campaign"]),
        kind=str(report["kind"]),
        criterion=str(report["criterion"]),
        progress=Progress(**{**p, "share": f"{p['share']:.0%}"}),
        alpha=_alpha_line(report["alpha"]),
        compared=str(report.get("compared", "the items’ models")),
        flagged=flagged,
        validation=_validation(report),
        has_models=bool(board.get("models")),
        groups=len({m.get("group", 0) for m in board.get("models", [])}),
        notes=[str(n) for n in board.get("notes", []) if "groups" not in n],
        leaderboard=_leaderboard(board),
        demographics=people,
        judge=_judge(report),
        memory=_memory(report),
        trust=trust,
        figures=figures or {},
    )
