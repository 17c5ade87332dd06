"""Selection in rounds: re-estimate after each round, spend the next budget where intervals
overlap, and combine the rounds so the estimate stays unbiased.

Round ``k`` draws every judged item independently with a probability ``q_k(i)`` fixed
before its draw (from the judge's uncertainty and how unresolved the item's pair is on the
*hybrid* board fitted on the votes of the rounds before, at its own intervals;
:mod:`eval.leaderboards.contested`). Every judged item can be drawn in every round; an item
drawn again reuses the human votes it already has (no new votes are needed for it).

**The combination rule.** With round budgets ``B_k`` and weights ``w_k = B_k / sum_j B_j``,
each labelled item counts with the inverse weight

    r_i = sum_k w_k * drawn_k(i) / q_k(i)

in place of ``1/pi_i`` in the weighted estimator (:func:`eval.kit.stats.ppi.ppi_mean`,
:mod:`eval.leaderboards.hybrid_bt`). Given everything before round ``k``, the draw of round
``k`` is independent with known ``q_k``, so ``E[drawn_k(i) / q_k(i)] = 1`` and
``E[r_i] = sum_k w_k = 1`` exactly, whatever the earlier rounds' labels did to ``q_k``: the
rounds form a martingale, and the combined estimate is unbiased as if each item had been
labelled with "probability" ``1 / r_i``. The selection file stores ``probability = 1 / r_i``
for the items drawn in some round (it may exceed 1 when a small late round drew an item with
a high probability; it is a weight, not a chance), and each round's ``q_k``, draw and budget
under ``rounds``. The guarantee needs the rounds' budgets chosen without looking at the
estimates (e.g. fixed in advance); choosing a budget from the results makes it approximate.

Example:
    >>> inverse_weight([(0.5, True, 100), (0.25, True, 100)])     # 0.5/0.5 + 0.5/0.25
    3.0
    >>> inverse_weight([(0.5, False, 100), (0.25, False, 100)])
    0.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from eval.kit.stats.clusters import cluster_ids, shares_clusters
from eval.leaderboards.contested import unresolved_from_fit
from eval.leaderboards.hybrid_bt import fit_hybrid_bt
from eval.leaderboards.pairing import Key, attach_probabilities, item_key, pair_items
from eval.leaderboards.selection import (
    PAIR_BOOST,
    check_selection_options,
    selection_probabilities,
)
from eval.leaderboards.votes import Vote

__all__ = ["inverse_weight", "select_round"]


def inverse_weight(rounds: Sequence[tuple[float, bool, float]]) -> float:
    """``r = sum_k w_k drawn_k / q_k`` over ``(q_k, drawn_k, budget_k)`` (see above)."""
    total = sum(b for _, _, b in rounds)
    if total <= 0:
        raise ValueError("the rounds' budgets must be positive")
    return float(sum(b / total / q for q, drawn, b in rounds if drawn))


def _unresolved_hybrid(
    keys: list[tuple[str, Key]],
    human: Sequence[Vote],
    judge: Sequence[Vote],
    pi: dict[tuple[str, Key], float],
) -> np.ndarray:
    """``r`` of each item's pair on the hybrid board of its criterion (its own intervals);
    1 where that board cannot be fitted (no human vote on the criterion yet, say)."""
    out = np.ones(len(keys))
    where = {k: i for i, k in enumerate(keys)}
    for c in sorted({c for c, _ in keys}):
        try:
            items = attach_probabilities(pair_items(human, judge, c), pi)
            prompts = np.array([k[0] for k in items.keys])
            groups = cluster_ids(prompts) if shares_clusters(prompts) else None
            fit = fit_hybrid_bt(
                len(items.models), items.a, items.b, items.y, items.yhat, pi=items.pi,
                clusters=groups,
            )  # fmt: skip
        except ValueError:  # DegenerateFit is one
            continue
        r = unresolved_from_fit(fit, items.a, items.b, 1.0)
        for key, value in zip(items.keys, r, strict=True):
            out[where[(c, key)]] = value
    return out


def select_round(
    judge: Sequence[Vote],
    human: Sequence[Vote],
    previous: Sequence[dict[str, Any]],
    *,
    budget: int,
    round_no: int,
    floor: float | None = None,
    seed: int = 0,
    pair_boost: float = PAIR_BOOST,
) -> list[dict[str, Any]]:
    """Selection rows of round ``round_no`` (2 or more) from the previous round's rows and
    the human votes collected so far (see the module docstring)."""
    prev: dict[tuple[str, Key], dict[str, Any]] = {}
    for row in previous:
        first, second = sorted((row["model_a"], row["model_b"]))
        rounds = row.get("rounds") or [
            {"probability": row["probability"], "selected": row.get("selected", False),
             "budget": None}
        ]  # fmt: skip
        prev[(row["criterion"], (row["prompt_id"], first, second))] = dict(row, rounds=rounds)
    done = {len(r["rounds"]) for r in prev.values()}
    if done != {round_no - 1}:
        raise ValueError(
            f"--round {round_no} needs the selection file of round {round_no - 1}; "
            f"--previous holds {sorted(done)} round(s)"
        )
    if any(r["rounds"][0]["budget"] is None for r in prev.values()):  # a `select` file
        b1 = round(sum(float(r["probability"]) for r in prev.values()))
        for r in prev.values():
            r["rounds"][0]["budget"] = b1
    labels: dict[tuple[str, Key], list[float]] = {}
    for v in judge:
        key, won = item_key(v)
        labels.setdefault((v.criterion, key), []).append(won)
    keys = sorted(labels)
    missing = [k for k in keys if k not in prev]
    if missing or len(keys) != len(prev):
        raise ValueError(
            f"the judge votes and --previous must cover the same items: {len(missing)} judged "
            f"items are not in it and it has {len(prev)} items for {len(keys)} judged; pass "
            "the judge votes the first round was drawn from"
        )
    check_selection_options(budget, floor, pair_boost, len(keys))
    yhat = np.array([np.mean(labels[k]) for k in keys])
    pi_prev = {k: float(prev[k]["probability"]) for k in keys}
    unresolved = _unresolved_hybrid(keys, human, judge, pi_prev) if pair_boost else None
    q = selection_probabilities(yhat, budget, floor, unresolved=unresolved, boost=pair_boost)
    q = np.maximum(np.round(q, 6), 1e-6)
    drawn = np.random.default_rng(seed).random(q.size) < q
    rows = []
    for i, (c, (p, a, b)) in enumerate(keys):
        before = prev[(c, (p, a, b))]["rounds"]
        rounds = [*before, {"probability": float(q[i]), "selected": bool(drawn[i]),
                            "budget": budget}]  # fmt: skip
        triples = [(x["probability"], x["selected"], x["budget"]) for x in rounds]
        weight = inverse_weight(triples)
        if weight == 0:  # never drawn: its "probability" is never used; any positive value
            weight = inverse_weight([(x, True, z) for x, _, z in triples])
        row = {"prompt_id": p, "model_a": a, "model_b": b, "criterion": c,
               "probability": 1.0 / weight, "selected": any(x["selected"] for x in rounds),
               "new": bool(drawn[i]) and not any(x["selected"] for x in before),
               "round": round_no, "rounds": rounds}  # fmt: skip
        if unresolved is not None:
            row["unresolved"] = round(float(unresolved[i]), 4)
        rows.append(row)
    return rows
