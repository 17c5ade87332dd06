"""Humans where they matter: choose which judged items go to humans, with known probabilities.

Active statistical inference (Zrnic & Candès 2024) sends item ``i`` to humans with a
probability ``pi_i`` chosen before seeing any human label, and weights the human labels by
``1/pi_i`` (:func:`eval.kit.stats.ppi.ppi_mean`, :mod:`eval.leaderboards.hybrid_bt`): the
estimate stays unbiased whatever the rule, and the interval is narrower when the rule spends
humans where the judge is likely wrong. Here the rule follows the judge's own uncertainty on
the item, ``u = 1 - |2 yhat - 1|`` (0 when every judge vote agrees, 1 for a tie, a position
flip or a split panel): ``pi_i`` is proportional to ``sqrt(0.25 + u_i)``, never below
``floor`` and never above 1, scaled so that the expected number of items chosen is
``budget``. The best probabilities follow the square root of the judge's expected squared
error on the item; the rule takes that error to be five times larger on a fully uncertain
item than on one where the judge is unanimous (a more aggressive rule lost width in the
simulations of tests/eval/leaderboards when the judge was weak).

The weight is then multiplied by ``1 + pair_boost * r`` (default ``pair_boost`` 2), where
``r`` in [0, 1] says how unresolved the item's model pair still is on the judge-only board
with its intervals widened to the humans' budget (:mod:`eval.leaderboards.contested`): items
of pairs whose order is in doubt get up to three times the weight. The floor still holds for
every item. All weights are fixed before the draw, so the probabilities are known exactly and
the ``1/pi`` weighting keeps the estimate unbiased; the price is wider intervals on pairs
already resolved. Every item is then drawn independently (Poisson sampling) with exactly the
probability written to the file, so the number chosen is close to ``budget``, not exactly.

A selection file has one JSON object per judged item::

    {"prompt_id": "p1", "model_a": "flux", "model_b": "sd3", "criterion": "preference",
     "probability": 0.31, "selected": true, "unresolved": 0.82}

(``unresolved`` is ``r``; absent with ``pair_boost=0``.)

Example:
    >>> from eval.leaderboards.votes import Vote
    >>> judge = [Vote(f"p{i}", "x", "y", "a" if i % 3 else "tie", "c") for i in range(300)]
    >>> rows = select_items(judge, budget=60, seed=0)
    >>> round(sum(r["probability"] for r in rows)), sum(r["selected"] for r in rows)
    (60, 61)
    >>> max(r["probability"] for r in rows if r["prompt_id"] == "p0")   # a tie: uncertain
    0.316718
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from eval.kit.stats.clusters import cluster_ids, shares_clusters
from eval.leaderboards.contested import pair_unresolved
from eval.leaderboards.pairing import Key, item_key
from eval.leaderboards.tally import check_models
from eval.leaderboards.votes import Vote, VotesError

PAIR_BOOST = 2.0  # weight x (1 + PAIR_BOOST * r): an unresolved pair's items up to 3x
MAX_PAIR_BOOST = 1000.0
"""The largest ``pair_boost``: an unresolved pair's items at most 1,001 times the weight
(beyond it the judge's uncertainty no longer counts, and the weights overflow)."""
DEFAULT_FLOOR_SHARE = 0.25  # floor = this share of the average probability budget / N


def _scale(weight: np.ndarray, budget: float, floor: float) -> np.ndarray:
    """``clip(c * weight, floor, 1)`` with ``c`` such that the sum is ``budget``."""
    lo, hi = 0.0, 1.0
    while np.clip(hi * weight, floor, 1).sum() < budget:
        hi *= 2
    for _ in range(100):
        mid = (lo + hi) / 2
        if np.clip(mid * weight, floor, 1).sum() < budget:
            lo = mid
        else:
            hi = mid
    return np.clip(hi * weight, floor, 1)


def selection_probabilities(
    yhat: np.ndarray,
    budget: float,
    floor: float | None = None,
    *,
    unresolved: np.ndarray | None = None,
    boost: float = PAIR_BOOST,
) -> np.ndarray:
    """Each item's probability of going to humans from the judge's labels ``yhat`` (the
    share of judge votes won by the first model) and, when given, how unresolved the item's
    model pair is (``unresolved`` in [0, 1], :mod:`eval.leaderboards.contested`), which
    multiplies the weight by ``1 + boost * unresolved``. ``floor`` defaults to a quarter of
    the average probability ``budget / N``."""
    yhat = np.asarray(yhat, float)
    n = yhat.size
    floor = check_selection_options(budget, floor, boost, n)
    weight = np.sqrt(0.25 + (1 - np.abs(2 * yhat - 1)))
    if unresolved is not None:
        weight = weight * (1 + boost * np.clip(np.asarray(unresolved, float), 0, 1))
    pi = _scale(weight, float(budget), floor)
    if not np.all(np.isfinite(pi)) or pi.sum() > budget * (1 + 1e-6):
        raise ValueError(f"the selection probabilities do not sum to the budget {budget}")
    return pi


def check_selection_options(budget: float, floor: float | None, boost: float, n: int) -> float:
    """Check the numeric options of a selection of ``n`` items (each finite and in its range,
    the error naming its flag); the floor to use (its default when ``None``).

    >>> check_selection_options(30, None, 2.0, 300)
    0.025
    """
    if not _finite(budget) or not 0 < budget <= n:
        raise ValueError(f"--budget must be between 1 and the {n} judged items, got {budget}")
    if not _finite(boost):
        raise ValueError(f"--pair-boost must be a finite number, got {boost}")
    if not 0 <= boost <= MAX_PAIR_BOOST:
        raise ValueError(f"--pair-boost must be between 0 and {MAX_PAIR_BOOST:g}, got {boost}")
    if floor is None:
        return DEFAULT_FLOOR_SHARE * budget / n
    if not _finite(floor):
        raise ValueError(f"--floor must be a finite number, got {floor}")
    if not 0 < floor <= budget / n:
        raise ValueError(
            f"--floor must be in (0, budget/N = {budget / n:.4g}] (a probability no item "
            f"goes below, at most the average), got {floor}"
        )
    return floor


def _finite(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and bool(np.isfinite(x))


def _unresolved(keys: list[tuple[str, Key]], yhat: np.ndarray, widen: float) -> np.ndarray:
    """How unresolved each item's model pair is, from the judge-only board of its criterion
    (intervals widened to the humans' budget; :mod:`eval.leaderboards.contested`)."""
    out = np.ones(len(keys))
    crit = np.array([c for c, _ in keys])
    for c in np.unique(crit):
        rows = np.flatnonzero(crit == c)
        models = sorted({keys[i][1][j] for i in rows for j in (1, 2)})
        check_models(len(models), str(c))
        index = {m: i for i, m in enumerate(models)}
        a = np.array([index[keys[i][1][1]] for i in rows])
        b = np.array([index[keys[i][1][2]] for i in rows])
        prompts = np.array([keys[i][1][0] for i in rows])
        groups = cluster_ids(prompts) if shares_clusters(prompts) else None
        if len(models) > 1:
            out[rows] = pair_unresolved(len(models), a, b, yhat[rows], widen=widen, clusters=groups)
    return out


def select_items(
    judge: Sequence[Vote],
    *,
    budget: int,
    floor: float | None = None,
    seed: int = 0,
    pair_boost: float = PAIR_BOOST,
) -> list[dict[str, Any]]:
    """Selection rows (see the module docstring) for every item the judge labelled.
    ``pair_boost=0`` weighs by the judge's uncertainty alone."""
    labels: dict[tuple[str, Key], list[float]] = {}
    for v in judge:
        key, won = item_key(v)
        labels.setdefault((v.criterion, key), []).append(won)
    if not labels:
        raise ValueError("no judge votes to select from")
    keys = sorted(labels)
    yhat = np.array([np.mean(labels[k]) for k in keys])
    check_selection_options(budget, floor, pair_boost, len(keys))
    r = _unresolved(keys, yhat, float(np.sqrt(len(keys) / budget))) if pair_boost else None
    pi = selection_probabilities(yhat, budget, floor, unresolved=r, boost=pair_boost)
    pi = np.maximum(np.round(pi, 6), 1e-6)  # the draw uses exactly the stored probability
    chosen = np.random.default_rng(seed).random(pi.size) < pi
    return [
        {"prompt_id": p, "model_a": a, "model_b": b, "criterion": c,
         "probability": round(float(q), 6), "selected": bool(s)}
        | ({} if r is None else {"unresolved": round(float(u), 4)})
        for (c, (p, a, b)), q, s, u in zip(keys, pi, chosen, np.ones(pi.size) if r is None else r,
                                           strict=True)
    ]  # fmt: skip


def write_selection(rows: Sequence[dict[str, Any]], path: str | Path) -> Path:
    """Write selection rows as JSON lines."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _valid_round(r: object) -> bool:
    if not isinstance(r, dict):
        return False
    q, b = r.get("probability"), r.get("budget")
    if isinstance(q, bool) or isinstance(b, bool):
        return False
    if not isinstance(q, int | float) or not isinstance(b, int | float):
        return False
    return 0 < q <= 1 and b > 0 and isinstance(r.get("selected"), bool)


def _check_rounds(rounds: object, where: str) -> None:
    ok = isinstance(rounds, list) and bool(rounds) and all(_valid_round(r) for r in rounds)
    if not ok:
        raise VotesError(
            f"{where}: field 'rounds' must be a list of {{probability in (0, 1], selected, "
            "budget > 0}"
        )


def read_selection_rows(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a selection file, checked as :func:`read_selection` checks them."""
    read_selection(path)
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def read_selection(
    path: str | Path,
) -> tuple[dict[tuple[str, Key], float], dict[tuple[str, Key], bool]]:
    """``(probabilities, selected)`` keyed by ``(criterion, (prompt, model, model))``."""
    path = Path(path)
    if not path.is_file():
        raise VotesError(f"{path}: no such selection file")
    probs: dict[tuple[str, Key], float] = {}
    chosen: dict[tuple[str, Key], bool] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise VotesError(f"{where}: not JSON ({exc.msg})") from exc
        if not isinstance(row, dict):
            raise VotesError(f"{where}: expected a JSON object")
        for field in ("prompt_id", "model_a", "model_b", "criterion"):
            if not isinstance(row.get(field), str) or not row[field]:
                raise VotesError(f"{where}: field {field!r} is missing or not a string")
        q = row.get("probability")
        rounds = row.get("rounds")
        top = np.inf if rounds is not None else 1  # after rounds: 1 / the inverse weight
        if isinstance(q, bool) or not isinstance(q, int | float) or not 0 < q <= top:
            span = "positive" if rounds is not None else "in (0, 1]"
            raise VotesError(f"{where}: field 'probability' must be a number {span}")
        if rounds is not None:
            _check_rounds(rounds, where)
        first, second = sorted((row["model_a"], row["model_b"]))
        key = (row["criterion"], (row["prompt_id"], first, second))
        probs[key] = float(q)
        chosen[key] = bool(row.get("selected", False))
    if not probs:
        raise VotesError(f"{path}: no selection rows")
    return probs, chosen
