"""The campaign report: progress, who was excluded and why, agreement, the human leaderboard
and — where the judge answered the same items — judge–human next to human–human agreement.

Shape (``GET /v1/campaigns/{id}/report``; docs/design.md#human-label-campaigns plus additive
fields)::

    {"campaign", "kind", "criterion",
     "progress": {"items", "target_votes", "labels", "items_complete", "share", "annotators"},
     "annotators": [{"id", "flagged", "reasons", "validation_accuracy", "median_seconds",
                     "left_share", "fast_share", "answers", ...}],
     "exclusions": {"annotators": 2, "labels": 40, "rules": {...the bars...}},
     "alpha": {"level": "nominal", "value": 0.41, "units": 200},
     "agreement": {"rate", "ci95", "pairs", "units"} (+ "within_one" for ratings),
     "leaderboard": {...eval.leaderboards contract...}
                    | {"models": [{"model", "mean", "ci95", "n"}]} (ratings),
     "judge_agreement": {"rule", "judge_human": {...}, "human_human": {...}},   # when judged
     "hybrid": {...}}   # when judged: humans + judge, eval.campaigns.hybrid_report

Example::

    report = build_report(record, attempts, excluded_extra=None)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from eval.campaigns.agreement import Units, alpha, judge_vs_humans, pairwise_rate
from eval.campaigns.demographics import section
from eval.campaigns.exports import rating_rows, rating_units, vote_rows, vote_units
from eval.campaigns.hybrid_report import hybrid_section
from eval.campaigns.qc import Assessor, apply_consensus, consensus_exclusions
from eval.campaigns.record import CampaignRecord
from eval.campaigns.validation import by_source
from eval.kit.stats.bootstrap import mean_ci
from eval.kit.stats.krippendorff import Level
from eval.leaderboards.board import build_leaderboard
from eval.leaderboards.votes import Vote

ATTEMPT_FIELDS = ("annotator", "item", "accepted", "validation", "correct", "fast", "seconds",
                  "choice", "shown_left", "rating", "order")  # fmt: skip
"""What :func:`build_report` reads of an attempt: a caller holding many attempts for it may
keep only these."""


def annotator_flags(
    record: CampaignRecord, attempts: Iterable[Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """QC of every annotator, the consensus rule included for rating campaigns."""
    flags = Flags(record)
    flags.add(attempts)
    return flags.result()


class Flags:
    """:func:`annotator_flags` over attempts that arrive in parts: only what the rules need
    is kept (per-annotator tallies; for ratings, each kept rating's item, rater and value).

    Example::

        flags = Flags(record)
        for chunk in chunks:
            flags.add(chunk)
        people = flags.result()
    """

    def __init__(self, record: CampaignRecord):
        self.bars = record.qc
        self.rating = record.kind == "rating"
        self.assessor = Assessor(record.kind, self.bars)
        self.ratings: list[dict[str, Any]] = []

    def add(self, attempts: Iterable[Mapping[str, Any]]) -> None:
        chunk = attempts if isinstance(attempts, Sequence) else list(attempts)
        self.assessor.add(chunk)
        if self.rating:
            self.ratings += [
                {"annotator": a["annotator"], "item": a["item"], "rating": a["rating"]}
                for a in chunk
                if a.get("accepted") and not a.get("validation")
            ]

    def result(self) -> dict[str, dict[str, Any]]:
        people = self.assessor.result()
        if self.rating:
            flagged = {a for a, p in people.items() if p["flagged"]}
            found = consensus_exclusions(self.ratings, self.bars, flagged)
            apply_consensus(people, found, self.bars.min_consensus_r)
        return people


def _rating_board(rows: list[dict[str, Any]], n_boot: int, seed: int) -> dict[str, Any]:
    by_model: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        if not r["excluded"]:
            by_model[str(r["model"])].append(float(r["rating"]))
    models: list[dict[str, Any]] = []
    for model, vals in by_model.items():
        x = np.asarray(vals)
        ci = mean_ci(x, n_boot, seed, digits=3) if len(x) > 1 else None
        models.append({"model": model, "mean": round(float(x.mean()), 3), "ci95": ci, "n": len(x)})
    models.sort(key=lambda m: -m["mean"])
    for rank, m in enumerate(models, start=1):
        m["rank"] = rank
    return {"method": "mean rating", "models": models}


def _judge_units(record: CampaignRecord) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in record.real_items():
        j = item.judge
        if j is None:
            continue
        if record.kind == "pairwise" and j.winner in ("a", "b") and item.a and item.b:
            out[f"{item.id}|{item.a.model}|{item.b.model}"] = j.winner
        elif record.kind == "rating" and j.score is not None:
            out[item.id] = float(j.score)
    return out


def _alpha(units: Any, level: Level) -> dict[str, Any]:
    """Krippendorff's alpha at ``level`` over the units, with how many units it saw."""
    return {"level": level, "value": alpha(units, level), "units": len(units)}


def build_report(
    record: CampaignRecord,
    attempts: Sequence[Mapping[str, Any]],
    *,
    n_boot: int = 1000,
    seed: int = 0,
    judge: Mapping[str, Any] | None = None,
    profiles: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """The report from the campaign record and every attempt (see the module docstring).

    ``judge`` overrides the judge answers carried by the items: ``{unit: answer}`` with
    units as in :mod:`eval.campaigns.agreement` (e.g. from a file of judge results).
    ``profiles`` (annotator → self-reported profile) adds the ``demographics`` section
    (:func:`eval.campaigns.demographics.section`) against the campaign's reference."""
    people = annotator_flags(record, attempts)
    excluded = {a for a, p in people.items() if p["flagged"]}
    accepted = [a for a in attempts if a.get("accepted")]
    real = record.real_items()
    per_item: dict[str, int] = defaultdict(int)
    for a in accepted:
        if not a.get("validation"):
            per_item[a["item"]] += 1
    target = record.votes_per_item
    report: dict[str, Any] = {
        "campaign": record.id,
        "kind": record.kind,
        "criterion": record.criterion,
        "status": record.status,
        "compared": record.compared or "the items' models",
        "progress": {
            "items": len(real),
            "target_votes": target * len(real),
            "labels": sum(per_item.values()),
            "items_complete": sum(1 for i in real if per_item[i.id] >= target),
            "share": round(
                min(
                    1.0,
                    sum(min(per_item[i.id], target) for i in real) / max(1, target * len(real)),
                ),
                4,
            ),
            "annotators": len(people),
        },
        "annotators": list(people.values()),
    }
    numeric = record.kind == "rating"
    rows: list[dict[str, Any]]
    units: Units  # the people's answers per item (ratings or votes), for the judge's agreement
    if numeric:
        rows = rating_rows(record, attempts, excluded)
        units = rating_units(rows)
        report["alpha"] = _alpha(units, "interval")
        report["agreement"] = {
            "exact": pairwise_rate(units, n_boot=n_boot, seed=seed),
            "within_one": pairwise_rate(units, within=1.0, n_boot=n_boot, seed=seed),
        }
        report["leaderboard"] = _rating_board(rows, n_boot, seed)
    else:
        rows = vote_rows(record, attempts, excluded)
        votes = vote_units(rows)
        units = votes
        report["alpha"] = _alpha(votes, "nominal")
        report["agreement"] = pairwise_rate(votes, n_boot=n_boot, seed=seed)
        kept = [
            Vote(
                r["prompt_id"],
                r["model_a"],
                r["model_b"],
                r["winner"],
                r["criterion"],
                r["annotator"],
            )
            for r in rows
            if not r["excluded"]
        ]
        report["leaderboard"] = (
            build_leaderboard(kept, method="bt", n_boot=n_boot, seed=seed) if kept else None
        )
    report["validation"] = by_source(record, attempts, excluded)
    report["exclusions"] = {
        "annotators": len(excluded),
        "labels": sum(1 for r in rows if r["excluded"]),
        "rules": record.qc.model_dump(),
        "min_seconds": record.min_seconds,
    }
    if profiles is not None:
        reference = record.demographics_reference
        report["demographics"] = section(
            list(profiles.values()), reference.model_dump() if reference else None
        )
    judged = dict(judge) if judge is not None else _judge_units(record)
    if judged:
        report["judge_agreement"] = judge_vs_humans(
            units, judged, numeric=numeric, n_boot=n_boot, seed=seed
        )
        report["judged_by"] = record.judged_by or None  # None: the source did not say
        hybrid = hybrid_section(record, rows, judged)
        if hybrid is not None:
            report["hybrid"] = hybrid
    return report
