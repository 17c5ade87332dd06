"""Risk–coverage: how often the judge agrees with people on the share of items it is surest of.

For every kind of decision (``verdict``, ``winner.<criterion>``, ``rating.<side>.<dim>``, see
:mod:`judge.trust.items`) that both carries the judge's ``confidence`` and has people's label,
the decisions are ordered from the most to the least confident; keeping those at or above each
confidence gives one point: the **coverage** (the share of labelled decisions kept) and the
**agreement** with people on them, with an exact (Clopper–Pearson) 95% interval. Decisions
without a confidence are never kept. Agreement is what calibration tests: the people's
majority for verdicts and winners, within ``within`` points of their mean for ratings.

With a policy, each kind also gets the policy's **operating point** (the decisions it trusts:
their ``trusted`` flags when the results carry them, else the first stage's threshold) and the
**held-out** agreement: on the trusted decisions of items that were not among the policy's
calibration items (``calibrated_on``), set against the target.

Example:
    >>> ds = [Decision("verdict", f"s{i}", i / 10, i >= 3) for i in range(10)]
    >>> pts = curve(ds)
    >>> [(p["coverage"], p["agreement"]) for p in pts][:2], pts[-1]["agreement"]
    ([(0.1, 1.0), (0.2, 1.0)], 0.7)
    >>> [round(x, 2) for x in pts[-1]["ci95"]]   # exact 95% interval of 7 in 10
    [0.35, 0.93]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import beta

from eval.trust.calibrate import AGREE_WITHIN, agrees
from eval.trust.human import HumanRow
from eval.trust.labels import LabelIndex, consensus, match
from judge.trust.errors import TrustError
from judge.trust.items import result_id, trust_items
from judge.trust.policy import TrustPolicy

MAX_POINTS = 60
LEVEL = 0.95


@dataclass(frozen=True)
class Decision:
    """One labelled decision: its kind, item, the judge's confidence, whether the judge agreed
    with people, and the ``trusted`` flag when the result carries one."""

    kind: str
    item: str
    confidence: float | None
    agrees: bool
    trusted: bool | None = None


def interval(k: int, n: int, level: float = LEVEL) -> list[float] | None:
    """Two-sided Clopper–Pearson interval of ``k`` successes in ``n`` (None when ``n`` is 0)."""
    if n <= 0:
        return None
    a = (1.0 - level) / 2
    lo = 0.0 if k == 0 else float(beta.ppf(a, k, n - k + 1))
    hi = 1.0 if k == n else float(beta.ppf(1 - a, k + 1, n - k))
    return [round(lo, 4), round(hi, 4)]


def known_rows(rows: Sequence[HumanRow], results: Sequence[dict[str, Any]]) -> list[HumanRow]:
    """The rows that name a decision of ``results`` (a report's labels may cover items or
    criteria the judge's results do not: those are left out, not an error)."""
    index, out = LabelIndex(results), []
    for row in rows:
        try:
            index.decision(index.locate(row)[0], row)
        except TrustError:
            continue
        out.append(row)
    return out


def decisions(
    results: Sequence[dict[str, Any]], rows: Sequence[HumanRow], within: float = AGREE_WITHIN
) -> list[Decision]:
    """The labelled decisions of ``results`` (result dicts) against people's ``rows`` (matched
    and summed up as calibration does; unknown ids or criteria are errors naming the row:
    filter with :func:`known_rows` first where they may be)."""
    people, _ = consensus(match(rows, results))
    out = []
    for r in results:
        rid = result_id(r)
        for item in trust_items(r):
            label = people.get((rid, item.criterion))
            if label is None:
                continue
            flag = item.node.get("trusted")
            agreed = agrees(item, label[1], within)
            trusted = flag if isinstance(flag, bool) else None
            out.append(Decision(item.kind, rid, item.confidence, agreed, trusted))
    return out


def curve(ds: Sequence[Decision]) -> list[dict[str, Any]]:
    """The risk–coverage points of one kind's decisions (most confident first; at most
    :data:`MAX_POINTS`, always including the last one)."""
    n = len(ds)
    sure = sorted(
        (d for d in ds if d.confidence is not None), key=lambda d: -(d.confidence or 0.0)
    )
    if not n or not sure:
        return []
    conf = np.array([d.confidence for d in sure])
    agree = np.cumsum([d.agrees for d in sure])
    ends = [i for i in range(len(sure)) if i == len(sure) - 1 or conf[i + 1] < conf[i]]
    if len(ends) > MAX_POINTS:
        pick = np.linspace(0, len(ends) - 1, MAX_POINTS).round().astype(int)
        ends = [ends[i] for i in sorted(set(pick.tolist()))]
    points = []
    for i in ends:
        kept, k = i + 1, int(agree[i])
        points.append({"threshold": round(float(conf[i]), 4), "kept": kept,
                       "coverage": round(kept / n, 4), "agreement": round(k / kept, 4),
                       "ci95": interval(k, kept)})  # fmt: skip
    return points


def _summary(ds: Sequence[Decision]) -> dict[str, Any]:
    kept = [d for d in ds if d.trusted]
    k = sum(d.agrees for d in kept)
    return {"n": len(ds), "kept": len(kept),
            "coverage": round(len(kept) / len(ds), 4) if ds else None,
            "agreement": round(k / len(kept), 4) if kept else None,
            "ci95": interval(k, len(kept))}  # fmt: skip


def _flagged(ds: Sequence[Decision], policy: TrustPolicy | None, kind: str) -> list[Decision]:
    """``ds`` with ``trusted`` set: the results' own flags, else the policy's first stage."""
    if all(d.trusted is not None for d in ds):
        return list(ds)
    entry = policy.kinds.get(kind) if policy is not None else None
    first = entry.thresholds[0] if entry is not None and entry.thresholds else None
    cut = first if entry is not None and entry.certified else None
    return [
        Decision(d.kind, d.item, d.confidence, d.agrees,
                 cut is not None and d.confidence is not None and d.confidence >= cut - 1e-9)
        for d in ds
    ]  # fmt: skip


def trust_section(ds: Sequence[Decision], policy: TrustPolicy | None = None) -> dict[str, Any]:
    """Per kind: ``n`` labelled decisions, their ``curve``, and with a policy (or trust flags
    on the results) the ``operating_point`` and the ``held_out`` agreement. Empty when no
    decision has both a confidence and a label."""
    by_kind: dict[str, list[Decision]] = defaultdict(list)
    for d in ds:
        by_kind[d.kind].append(d)
    kinds = {}
    for kind, group in sorted(by_kind.items()):
        points = curve(group)
        if not points:
            continue
        entry: dict[str, Any] = {"n": len(group), "curve": points}
        flagged = any(d.trusted is not None for d in group)
        if policy is not None or flagged:
            marked = _flagged(group, policy, kind)
            entry["operating_point"] = _summary(marked)
            if policy is not None and policy.calibrated_on is not None:
                seen = set(policy.calibrated_on)
                held = _summary([d for d in marked if d.item not in seen])
                held["target"] = policy.target
                held["meets_target"] = (
                    held["agreement"] >= policy.target if held["agreement"] is not None else None
                )
                entry["held_out"] = held
        kinds[kind] = entry
    if not kinds:
        return {}
    out: dict[str, Any] = {"level": LEVEL, "kinds": kinds}
    if policy is not None:
        out["policy"] = {"target": policy.target, "delta": policy.delta,
                         "stages": policy.stage_names,
                         "calibration_items": policy.n_items}  # fmt: skip
    return out
