"""Fixed-sequence testing of confidence thresholds, for one judge or a cascade of judges.

The data of one kind: for each calibration item and each stage (judge, cheap to strong) the
stage's confidence, whether it answered, and whether its answer agrees with people. A
*configuration* gives each stage a threshold; an item is decided by the first stage whose
confidence reaches its threshold, and kept when some stage decided it. Its risk is the
disagreement rate with people among kept items.

**One judge.** The thresholds of :data:`GRID` (1.0 down to 0.0 by 0.005, fixed in advance)
are tested from strict to lenient: "the risk at this threshold exceeds ``1 - target``" is
rejected when the exact binomial (Clopper–Pearson) upper bound on the kept items'
disagreement is at most ``1 - target``; testing stops at the first threshold not rejected.
Fixed-sequence testing needs no correction for the number of thresholds: with probability at
least ``1 - delta`` every rejected threshold is truly within the target, so the most lenient
one (the largest coverage) is chosen. Thresholds that keep fewer calibration items than could
ever certify the target (:func:`eval.trust.binomial.min_kept`) are passed over at the start;
this looks at the confidences alone, never at the labels.

**A cascade.** The guarantee is for the cascade as a whole: the risk tested is the
disagreement of each kept item with the answer of the stage that decided it. The joint
thresholds are tested along a few paths fixed in advance (:data:`RATIOS`): on a path the last
stage's threshold runs down :data:`GRID` and each earlier stage is ``r`` times as tolerant of
doubt (its ``1 - threshold`` is ``r`` times the next stage's), so a cheap stage keeps only what
it is surer of. Each path is a fixed sequence tested at ``delta / len(RATIOS)`` (Bonferroni),
so with probability at least ``1 - delta`` every configuration certified on any path is within
the target; the choice among them — the largest coverage, then, within :data:`SLACK` of it, the
fewest calls to later stages — may look at the data freely.

Example:
    >>> import numpy as np
    >>> conf = np.array([[0.99] * 60 + [0.5] * 40])
    >>> agree = np.array([[True] * 59 + [False] + [True, False] * 20])
    >>> best = calibrate_kind(conf, agree, target=0.9, delta=0.1).chosen
    >>> best.thresholds, best.kept, best.coverage
    ((0.99,), 60, 0.6)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from eval.trust.binomial import kept_needed, min_kept, upper_bound, upper_bounds

GRID: tuple[float, ...] = tuple(round(1.0 - i / 200, 3) for i in range(201))
"""Candidate thresholds, strict to lenient (fixed before any data is seen)."""
RATIOS: tuple[float, ...] = (0.5, 0.25)
"""Cascade paths: each earlier stage's ``1 - threshold`` is ``r`` times the next stage's."""
SLACK = 0.02
"""A cascade gives up at most this much coverage for fewer calls to its later stages."""
EPS = 1e-9

Thresholds = tuple[float | None, ...]


@dataclass(frozen=True)
class Tested:
    """One configuration's figures on the calibration items."""

    thresholds: Thresholds
    n: int
    kept: int
    disagree: int
    upper: float
    stage_kept: tuple[int, ...]
    calls: tuple[int, ...]

    @property
    def coverage(self) -> float:
        return self.kept / self.n if self.n else 0.0

    @property
    def agreement(self) -> float | None:
        return 1.0 - self.disagree / self.kept if self.kept else None

    @property
    def cost(self) -> float:
        """Calls to stages after the first, per item (0 for one judge)."""
        return sum(self.calls[1:]) / self.n if self.n else 0.0


@dataclass
class KindOutcome:
    """Calibration of one kind: the chosen configuration (None when the target could not be
    certified) and what would help when it could not."""

    chosen: Tested | None
    tested: list[Tested] = field(default_factory=list)
    largest_target: float | None = None
    n_needed: int | None = None


def deciders(conf: np.ndarray, thresholds: Thresholds) -> np.ndarray:
    """Per item the index of the stage that decides it, -1 when none does; ``conf`` is
    (stages, items) with NaN where a stage gave no answer."""
    out = np.full(conf.shape[1], -1)
    for k, t in enumerate(thresholds):
        if t is None:
            continue
        hit = (out < 0) & ~np.isnan(conf[k]) & (np.nan_to_num(conf[k], nan=-1.0) >= t - EPS)
        out[hit] = k
    return out


def evaluate(conf: np.ndarray, agree: np.ndarray, thresholds: Thresholds, delta: float) -> Tested:
    """The figures of one configuration, with its upper bound at level ``delta``."""
    who = deciders(conf, thresholds)
    n, kept_mask = conf.shape[1], who >= 0
    kept = int(kept_mask.sum())
    right = agree[who[kept_mask], np.flatnonzero(kept_mask)] if kept else np.array([], bool)
    disagree = int(kept - right.sum())
    stage_kept = tuple(int((who == k).sum()) for k in range(conf.shape[0]))
    calls, reach = [], n
    for k in range(conf.shape[0]):
        calls.append(reach)
        reach -= stage_kept[k]
    return Tested(thresholds, n, kept, disagree, upper_bound(disagree, kept, delta),
                  stage_kept, tuple(calls))  # fmt: skip


def paths(stages: int) -> list[list[Thresholds]]:
    """The fixed sequences to test: one for a single judge, one per ratio for a cascade."""
    if stages == 1:
        return [[(g,) for g in GRID]]
    out: list[list[Thresholds]] = []
    for r in RATIOS:
        path: list[Thresholds] = []
        for g in GRID:
            path.append(
                tuple(round(1.0 - r ** (stages - 1 - k) * (1.0 - g), 6) for k in range(stages))
            )
        out.append(path)
    return out


def evaluate_path(
    conf: np.ndarray, agree: np.ndarray, path: list[Thresholds], delta: float
) -> list[Tested]:
    """:func:`evaluate` of every configuration of ``path`` at once (the same figures)."""
    stages, n = conf.shape
    table = np.array([[np.inf if t is None else t - EPS for t in th] for th in path])  # (P, K)
    answered = ~np.isnan(conf)
    hits = answered[None] & (np.nan_to_num(conf, nan=-1.0)[None] >= table[:, :, None])  # P,K,n
    first = np.where(hits.any(axis=1), hits.argmax(axis=1), -1)  # (P, n)
    kept = (first >= 0).sum(axis=1)
    right = np.where(first >= 0, agree[np.clip(first, 0, None), np.arange(n)[None]], False)
    disagree = kept - right.sum(axis=1)
    stage_kept = np.stack([(first == k).sum(axis=1) for k in range(stages)], axis=1)
    reach = n - np.concatenate([np.zeros((len(path), 1), int), np.cumsum(stage_kept, 1)], 1)
    bounds = upper_bounds(disagree, kept, delta)
    return [
        Tested(th, n, int(kept[p]), int(disagree[p]), float(bounds[p]),
               tuple(int(x) for x in stage_kept[p]), tuple(int(x) for x in reach[p, :stages]))
        for p, th in enumerate(path)
    ]  # fmt: skip


def fixed_sequence(
    conf: np.ndarray, agree: np.ndarray, path: list[Thresholds], target: float, delta: float
) -> list[Tested]:
    """Test ``path`` in order; returns the tested configurations up to and including the
    first one not certified (every earlier one is certified)."""
    risk, floor = 1.0 - target, min_kept(target, delta)
    tested: list[Tested] = []
    for point in evaluate_path(conf, agree, path, delta):
        if not tested and point.kept < floor:
            continue  # passed over: too few items to certify anything (labels unseen)
        tested.append(point)
        if point.upper > risk:
            break
    return tested


def certified(tested: list[Tested], target: float) -> list[Tested]:
    """The certified configurations of one path's run."""
    return [t for t in tested if t.upper <= 1.0 - target]


def _choose(points: list[Tested]) -> Tested | None:
    if not points:
        return None
    best = max(p.coverage for p in points)
    near = [p for p in points if p.coverage >= best - SLACK - EPS]
    return min(near, key=lambda p: (p.cost, -p.coverage))


def calibrate_kind(
    conf: np.ndarray, agree: np.ndarray, *, target: float, delta: float
) -> KindOutcome:
    """Choose the thresholds of one kind (see the module); ``conf`` and ``agree`` are
    (stages, items)."""
    runs = paths(conf.shape[0])
    level = delta / len(runs)
    tested = [fixed_sequence(conf, agree, p, target, level) for p in runs]
    chosen = _choose([t for run in tested for t in certified(run, target)])
    outcome = KindOutcome(chosen, [t for run in tested for t in run])
    if chosen is None:
        outcome.largest_target = largest_target(conf, agree, delta, below=target)
        outcome.n_needed = labels_needed(conf, agree, target, level)
    return outcome


def largest_target(conf: np.ndarray, agree: np.ndarray, delta: float, below: float) -> float | None:
    """The largest target (a multiple of 0.005 below ``below``) these items would certify."""
    level = delta / len(paths(conf.shape[0]))
    t = math.floor(below * 200 - EPS) / 200
    while t >= 0.5 - EPS:
        for path in paths(conf.shape[0]):
            if certified(fixed_sequence(conf, agree, path, t, level), t):
                return round(t, 3)
        t = round(t - 0.005, 3)
    return None


def labels_needed(conf: np.ndarray, agree: np.ndarray, target: float, level: float) -> int | None:
    """About how many calibration items would certify ``target``, if the judge kept agreeing
    as it does here: the fewest over the configurations, each keeping its share of items."""
    n, best = conf.shape[1], None
    for path in paths(conf.shape[0]):
        for point in evaluate_path(conf, agree, path, level):
            if not point.kept or point.agreement is None:
                continue
            need = kept_needed(target, level, point.agreement)
            if need is not None:
                total = math.ceil(need / point.kept * n)
                best = total if best is None else min(best, total)
    return best
