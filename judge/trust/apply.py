"""Apply a trust policy to results: which answers may be trusted, and rating intervals.

Each decision of the result (see :mod:`judge.trust.items`) gets

- ``trusted``: true when a stage of the policy decided it, its confidence at or above the
  stage's threshold for the item's kind;
- ``abstained_by`` (when not trusted): the name of the last stage that looked at the item and
  was not confident enough, or ``policy`` when the policy certified no threshold for its kind;
- ``interval`` ``[lo, hi]`` (ratings, when the policy has one for the kind);
- for a cascade (several stages) ``stage``: whose answer the item shows, and ``escalate``: true
  when a later stage, not yet run, may still decide it.

With a cascade the first stage's result is the base; an item decided by a later stage takes
that stage's answer, checklist rates are recounted and ``usage`` adds up the stages.

Nothing calls a model: a policy is applied to answers already given. A result of another
judge than the stage's fingerprint is refused (:class:`TrustMismatch`, naming both).

Example:
    >>> from judge.trust.policy import parse_policy
    >>> policy = parse_policy({"target": 0.9, "delta": 0.1,
    ...     "stages": [{"name": "m", "fingerprint": {"judge_models": ["m"]}}],
    ...     "kinds": {"verdict": {"certified": True, "thresholds": [0.8], "n": 50,
    ...                           "kept": 40, "coverage": 0.8}}})
    >>> r = {"submission_id": "s1", "provenance": {"judge_models": ["m"]},
    ...      "objective": {"image": {"items": [{"id": "c1", "verdict": True, "confidence": 0.9},
    ...                                        {"id": "c2", "verdict": False, "confidence": 0.5}]}}}
    >>> items = apply(r, policy)["objective"]["image"]["items"]
    >>> [(i["trusted"], i.get("abstained_by")) for i in items]
    [(True, None), (False, 'm')]
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from typing import Any

from judge.trust.errors import TrustError, TrustMismatch
from judge.trust.fingerprint import compatible, fingerprint
from judge.trust.items import TrustItem, result_id, trust_items
from judge.trust.policy import Interval, KindPolicy, TrustPolicy
from judge.trust.recount import recount

EPS = 1e-9
POLICY = "policy"
USAGE_SUMS = ("llm_calls", "prompt_tokens", "completion_tokens", "cost_usd", "cache_hits",
              "latency_s", "retries", "reasks", "failed_calls", "confidence_calls",
              "confidence_cost_usd")  # fmt: skip


def decides(item: TrustItem | None, threshold: float | None) -> bool:
    """Whether a stage's answer ``item`` is confident enough for ``threshold``."""
    return (
        item is not None
        and threshold is not None
        and item.value is not None
        and item.confidence is not None
        and item.confidence >= threshold - EPS
    )


def interval(score: float, spec: Interval) -> list[float]:
    """``score ± quantile`` clipped to the scale; with ``step`` the ends are snapped inward to
    the scale's points (a whole-point human rating is inside exactly when it was inside the
    unsnapped interval), never leaving it empty: the nearest point then.

    >>> interval(3.4, Interval(alpha=0.1, quantile=1.2, n=100))
    [3.0, 4.0]
    >>> interval(3.4, Interval(alpha=0.1, quantile=0.2, n=100))
    [3.0, 3.0]
    """
    lo_end, hi_end = spec.scale
    lo, hi = max(lo_end, score - spec.quantile), min(hi_end, score + spec.quantile)
    if spec.step:
        lo_s = lo_end + math.ceil((lo - lo_end) / spec.step - EPS) * spec.step
        hi_s = lo_end + math.floor((hi - lo_end) / spec.step + EPS) * spec.step
        if lo_s > hi_s:
            near = lo_end + round((score - lo_end) / spec.step) * spec.step
            lo_s = hi_s = min(max(near, lo_end), hi_end)
        lo, hi = lo_s, hi_s
    return [round(lo, 4), round(hi, 4)]


def _check_stage(result: dict[str, Any], policy: TrustPolicy, k: int) -> None:
    problem = compatible(fingerprint(result), policy.stages[k].fingerprint)
    if problem is not None:
        raise TrustMismatch(
            f"{result_id(result)} (stage {k + 1}, {policy.stages[k].name}): {problem}"
        )


def _mark(
    base: TrustItem,
    stage_items: list[TrustItem | None],
    entry: KindPolicy | None,
    policy: TrustPolicy,
    n_given: int,
) -> dict[str, Any]:
    """The node the output shows for one decision, annotated."""
    names, cascade = policy.stage_names, len(policy.stages) > 1
    thresholds = entry.thresholds if entry is not None and entry.certified else None
    decider = next(
        (k for k, it in enumerate(stage_items) if thresholds and decides(it, thresholds[k])), None
    )
    shown_k = (
        decider
        if decider is not None
        else max((k for k, it in enumerate(stage_items) if it is not None), default=0)
    )
    shown = stage_items[shown_k] or base
    node = copy.deepcopy(shown.node)
    for key in ("trusted", "abstained_by", "interval", "stage", "escalate"):
        node.pop(key, None)
    node["trusted"] = decider is not None
    if decider is None:
        node["abstained_by"] = names[n_given - 1] if thresholds else POLICY
        later = thresholds[n_given:] if thresholds else []
        if any(t is not None for t in later):
            node["escalate"] = True
    if cascade:
        node["stage"] = names[shown_k]
    if entry is not None and entry.interval is not None and isinstance(shown.value, float):
        node["interval"] = interval(shown.value, entry.interval)
    return node


def apply_stages(results: Sequence[dict[str, Any]], policy: TrustPolicy) -> dict[str, Any]:
    """The first result annotated by ``policy``; ``results[k]`` is stage ``k``'s result for the
    same item (as many as were run, at most one per stage). Returns a new dict."""
    if not results:
        raise TrustError("no result to apply the policy to")
    if len(results) > len(policy.stages):
        raise TrustError(
            f"{len(results)} results for a policy of {len(policy.stages)} stage(s) "
            f"({', '.join(policy.stage_names)}): give one result per stage, cheap to strong"
        )
    ids = [result_id(r) for r in results]
    if len(set(ids)) > 1:
        raise TrustError(f"the stages' results are of different items: {', '.join(ids)}")
    for k, r in enumerate(results):
        _check_stage(r, policy, k)
    out = copy.deepcopy(results[0])
    per_stage = [{(i.kind, i.criterion): i for i in trust_items(r)} for r in results]
    replaced = {}
    for base in trust_items(results[0]):
        key = (base.kind, base.criterion)
        stage_items = [idx.get(key) for idx in per_stage]
        replaced[key] = _mark(base, stage_items, policy.kinds.get(base.kind), policy, len(results))
    for item in trust_items(out):
        item.node.clear()
        item.node.update(replaced[(item.kind, item.criterion)])
    if len(results) > 1:
        _combine(out, results)
    return out


def _combine(out: dict[str, Any], results: Sequence[dict[str, Any]]) -> None:
    """Recount checklist sides and add up usage and judge models over the stages."""
    for side in (out.get("objective") or {}).values():
        if isinstance(side, dict):
            recount(side)
    usage = out.setdefault("usage", {})
    for key in USAGE_SUMS:
        values = [(r.get("usage") or {}).get(key) for r in results]
        numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
        if numbers:
            usage[key] = round(sum(numbers), 6) if isinstance(numbers[0], float) else sum(numbers)
    models = [m for r in results for m in (r.get("provenance") or {}).get("judge_models") or []]
    out.setdefault("provenance", {})["judge_models"] = list(dict.fromkeys(models))


def apply(result: dict[str, Any], policy: TrustPolicy) -> dict[str, Any]:
    """``result`` annotated by ``policy`` (its first stage's answers); see the module."""
    return apply_stages([result], policy)
