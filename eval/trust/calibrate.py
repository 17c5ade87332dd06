"""Calibrate a trust policy from the judge's results and people's labels.

``stages`` holds one list of results per judge, cheap to strong, all of the same items (one
list for a single judge). For every kind of decision people labelled, the thresholds come
from :func:`eval.trust.sequence.calibrate_kind` and, for ratings with ``alpha``, the interval
from :func:`eval.trust.conformal.rating_interval` (on the score the cascade shows: the
deciding stage's, else the last stage's). A kind that cannot be certified is kept in the
policy as not certified, with the reason, the largest target its items would certify and
about how many labelled items the target needs; :attr:`Calibration.ok` is false when no kind
is certified (the CLI then writes no policy and exits 2).

Example::

    cal = calibrate([results], rows, target=0.9, delta=0.1, alpha=0.1)
    if cal.ok:
        Path("policy.json").write_text(cal.policy.to_json())
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from eval.trust.conformal import items_for_interval, rating_interval
from eval.trust.human import HumanRow
from eval.trust.labels import consensus, match
from eval.trust.sequence import KindOutcome, calibrate_kind, deciders
from judge.trust.errors import TrustError
from judge.trust.fingerprint import Fingerprint, fingerprint
from judge.trust.items import TrustItem, result_id, trust_items
from judge.trust.policy import KindPolicy, Stage, TrustPolicy

AGREE_WITHIN = 1.0


@dataclass
class Calibration:
    """The policy and a line per kind saying what calibration found."""

    policy: TrustPolicy
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return any(k.certified for k in self.policy.kinds.values())


def stage_fingerprint(results: Sequence[dict[str, Any]], name: str) -> Fingerprint:
    """One fingerprint for a stage's results (cards and memories pooled); results of two
    judges, or without any confidence, are refused."""
    if not results:
        raise TrustError(f"{name}: no results")
    fp = fingerprint(results[0])
    for r in results[1:]:
        try:
            fp = fp.widened(fingerprint(r))
        except TrustError as exc:
            raise TrustError(f"{name} ({result_id(r)}): {exc}") from None
    if not any(i.confidence is not None for r in results for i in trust_items(r)):
        raise TrustError(
            f"{name}: no decision carries a confidence: score with a confidence method "
            "(option confidence, e.g. samples:5) before calibrating"
        )
    return fp


def agrees(item: TrustItem | None, human: Any, within: float) -> bool:
    """Whether the judge's answer matches the people's (a rating within ``within`` points of
    their mean; anything else equal); no answer never agrees."""
    if item is None or item.value is None:
        return False
    if isinstance(human, float) and not isinstance(item.value, bool | str):
        return abs(float(item.value) - human) <= within + 1e-9
    return item.value == human


def _arrays(keys, stage_index, people, within):
    conf = np.full((len(stage_index), len(keys)), np.nan)
    agree = np.zeros((len(stage_index), len(keys)), bool)
    for k, index in enumerate(stage_index):
        for i, key in enumerate(keys):
            item = index.get(key)
            if item is not None and item.value is not None and item.confidence is not None:
                conf[k, i] = item.confidence
            agree[k, i] = agrees(item, people[key][1], within)
    return conf, agree


def _shown_scores(keys, stage_index, people, chosen):
    """(score shown, human mean) per rated item: the deciding stage's, else the last one's."""
    conf = np.full((len(stage_index), len(keys)), np.nan)
    for k, index in enumerate(stage_index):
        for i, key in enumerate(keys):
            item = index.get(key)
            if item is not None and item.value is not None and item.confidence is not None:
                conf[k, i] = item.confidence
    who = deciders(conf, chosen.thresholds) if chosen else np.full(len(keys), -1)
    pairs = []
    for i, key in enumerate(keys):
        order = [int(who[i])] if who[i] >= 0 else list(range(len(stage_index)))[::-1]
        item = next((stage_index[k].get(key) for k in order if stage_index[k].get(key)), None)
        if item is not None and isinstance(item.value, float):
            pairs.append((item.value, people[key][1]))
    return pairs


def _entry(outcome: KindOutcome, n: int, target: float, delta: float) -> KindPolicy:
    c = outcome.chosen
    if c is None:
        return KindPolicy(
            certified=False,
            n=n,
            kept=0,
            coverage=0.0,
            largest_target=outcome.largest_target,
            n_needed=outcome.n_needed,
        )
    return KindPolicy(
        certified=True, thresholds=list(c.thresholds), n=n, kept=c.kept,
        coverage=round(c.coverage, 4), agreement=round(c.agreement or 0.0, 4),
        upper_bound=round(c.upper, 4),
        stage_share=[round(s / n, 4) for s in c.stage_kept],
    )  # fmt: skip


def _note(kind: str, entry: KindPolicy, target: float, delta: float) -> str:
    if entry.certified:
        th = ", ".join("off" if t is None else f"{t:g}" for t in entry.thresholds or [])
        return (f"{kind}: certified at threshold(s) {th}: {entry.kept} of {entry.n} kept "
                f"({entry.coverage:.0%}), agreement {entry.agreement:.3f} on them "
                f"(upper bound on disagreement {entry.upper_bound:.3f})")  # fmt: skip
    best = (
        f"the largest target these items certify is {entry.largest_target:g}"
        if entry.largest_target is not None
        else "no target of 0.5 or more can be certified"
    )
    need = (f"about {entry.n_needed} labelled items would certify {target:g} if the judge keeps "
            "agreeing as it does here" if entry.n_needed is not None
            else f"no number of labels would: the judge never agrees {target:g} of the time, "
            "even on the items it is surest of")  # fmt: skip
    return (f"{kind}: agreement >= {target:g} cannot be certified with delta {delta:g} on "
            f"{entry.n} labelled items: {best}; {need}")  # fmt: skip


def calibrate(
    stages: Sequence[Sequence[dict[str, Any]]],
    rows: Sequence[HumanRow],
    *,
    target: float,
    delta: float,
    alpha: float | None = None,
    names: Sequence[str] | None = None,
) -> Calibration:
    """The policy of ``stages`` (see the module); ``names`` label the stages in messages."""
    if not 0.0 < target < 1.0 or not 0.0 < delta < 1.0:
        raise TrustError(
            f"target and delta must lie strictly between 0 and 1 (got {target}, {delta})"
        )
    if alpha is not None and not 0.0 < alpha < 1.0:
        raise TrustError(f"alpha must lie strictly between 0 and 1 (got {alpha})")
    names = list(names or [f"results {k + 1}" for k in range(len(stages))])
    fps = [stage_fingerprint(s, n) for s, n in zip(stages, names, strict=True)]
    ids = [{result_id(r) for r in s} for s in stages]
    for k in range(1, len(stages)):
        if ids[k] != ids[0]:
            missing = sorted(ids[0] ^ ids[k])[:3]
            raise TrustError(
                f"{names[k]} and {names[0]} are not of the same items (e.g. "
                f"{', '.join(missing)}): a cascade is calibrated on the same items"
            )
    people, dropped = consensus(match(rows, list(stages[0])))
    stage_index = [
        {(result_id(r), i.criterion): i for r in s for i in trust_items(r)} for s in stages
    ]
    by_kind: dict[str, list[tuple[str, str]]] = {}
    for key, (kind, _, _) in people.items():
        by_kind.setdefault(kind, []).append(key)
    kinds, notes = {}, []
    for kind, keys in sorted(by_kind.items()):
        conf, agree = _arrays(keys, stage_index, people, AGREE_WITHIN)
        outcome = calibrate_kind(conf, agree, target=target, delta=delta)
        entry = _entry(outcome, len(keys), target, delta)
        if np.isnan(conf).all():
            entry.reason = "no decision of this kind carries a confidence"
            notes.append(
                f"{kind}: not certified: {entry.reason} (score it with a confidence method)"
            )
        else:
            notes.append(_note(kind, entry, target, delta))
        if kind.startswith("rating.") and alpha is not None:
            pairs = _shown_scores(keys, stage_index, people, outcome.chosen)
            spec = (
                rating_interval([p[0] for p in pairs], [p[1] for p in pairs], alpha)
                if pairs
                else None
            )
            entry.interval = spec
            if spec is None:
                notes.append(
                    f"{kind}: no interval: level {1 - alpha:g} needs at least "
                    f"{items_for_interval(alpha)} rated items (has {len(pairs)})"
                )
        if kind == "verdict":
            entry.ties_dropped = dropped
        kinds[kind] = entry
    policy = TrustPolicy(
        target=target, delta=delta, alpha=alpha, agree_within=AGREE_WITHIN,
        stages=[Stage(name=n, fingerprint=fp) for n, fp in zip(_unique(fps), fps, strict=True)],
        kinds=kinds,
        n_items=len(ids[0]), calibrated_on=sorted(ids[0]),
    )  # fmt: skip
    if not kinds:
        notes.append("no human label matched a decision the judge gave a confidence for")
    return Calibration(policy, notes)


def _unique(fps: Sequence[Fingerprint]) -> list[str]:
    """Stage names: the judge's label, numbered when two stages share it."""
    labels = [fp.label for fp in fps]
    return [f"{x}#{k + 1}" if labels.count(x) > 1 else x for k, x in enumerate(labels)]
