"""Hybrid leaderboards: few human votes and many judge votes, one board with honest intervals.

Human and judge votes are paired into items (:mod:`eval.leaderboards.pairing`); items with
both form the labelled set, judge-only items the rest. The board's scores are the
prediction-powered (PPI++) estimates of what the *humans'* leaderboard would be over all
items (:mod:`eval.leaderboards.hybrid_bt`, :mod:`eval.leaderboards.hybrid_winrate`), so the
judge's biases are measured on the labelled items and removed. Next to them each row shows
the human-only and judge-only estimates and the judge's measured bias::

    {"method": "bt", "estimator": "ppi++", "criterion": "preference", "lam": 0.81,
     "n_human_votes": 5000, "n_judge_votes": 100000, "n_items": 100000, "n_labelled": 5000,
     "n_prompts": 20000, "variance": "clustered by prompt",
     "human_votes_equivalent": 14100, "human_votes_saved": 9100, "notes": [],
     "models": [{"model": "flux", "rank": 1, "score": 29.9, "ci95": [28.1, 31.6],
                 "judge_bias": {"score": 2.1, "ci95": [0.4, 3.8]},
                 "human_only": {"score": 30.2, "ci95": [27.0, 33.4], "rank": 1},
                 "judge_only": {"score": 32.0, "ci95": [31.8, 32.2], "rank": 1}}]}

``variance`` is ``clustered by prompt`` when some prompt holds several items of the board
(the intervals are then cluster-robust, :mod:`eval.kit.stats.clusters`), else ``independent
items``. ``human_votes_equivalent`` is how many human votes a human-only board would need for the
same mean interval width (width shrinks as one over the square root of the votes).

Example:
    >>> from eval.leaderboards.votes import Vote
    >>> judge = [Vote(f"p{i}", "x", "y", "a" if i % 5 else "b", "c") for i in range(400)]
    >>> human = [Vote(f"p{i}", "x", "y", "a" if i % 5 and i % 3 else "b", "c")
    ...          for i in range(0, 400, 4)]
    >>> board = build_hybrid_leaderboard(human, judge, method="winrate")
    >>> top = board["models"][0]
    >>> top["model"], top["score"], top["ci95"], top["human_only"]["ci95"]
    ('x', 53.0, [44.31, 61.69], [43.22, 62.78])
    >>> top["judge_only"]["score"], top["judge_bias"]["score"]
    (80.0, 27.0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from eval.kit.stats.clusters import cluster_ids, shares_clusters
from eval.kit.stats.ppi import z_value
from eval.leaderboards.hybrid_bt import DegenerateFit, fit_bias_bt, fit_hybrid_bt, fit_judge_bt
from eval.leaderboards.hybrid_winrate import winrate_estimates
from eval.leaderboards.pairing import Items, Key, attach_probabilities, item_key, pair_items
from eval.leaderboards.votes import Vote

HYBRID_METHODS = ("bt", "winrate")
FEW_LABELS = 10  # below this many human-labelled items a model's interval is not to be trusted
Estimates = dict[str, tuple[np.ndarray, np.ndarray] | None]


def _r(x: float) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), 2)


def _ranks(scores: np.ndarray) -> list[int | None]:
    key = np.where(np.isfinite(scores), np.round(scores, 9), -np.inf)
    return [
        1 + int(np.sum(key > k)) if np.isfinite(s) else None
        for k, s in zip(key, scores, strict=True)
    ]


def _entry(scores: np.ndarray, se: np.ndarray, i: int, z: float, rank: bool) -> dict | None:
    s, e = scores[i], se[i]
    if not np.isfinite(s):
        return None
    out = {"score": _r(s), "ci95": [_r(s - z * e), _r(s + z * e)] if np.isfinite(e) else None}
    if rank:
        out["rank"] = _ranks(scores)[i]
    return out


def _bt(items: Items, notes: list[str]) -> tuple[Estimates, float]:
    m, a, b, y, yh, pi = items.models, items.a, items.b, items.y, items.yhat, items.pi
    g = _clusters(items)
    try:
        fit = fit_hybrid_bt(len(m), a, b, y, yh, pi=pi, clusters=g)
    except DegenerateFit as exc:
        raise ValueError(
            f"no Bradley–Terry board for criterion {items.criterion!r}: {exc}"
        ) from exc
    out: Estimates = {"hybrid": (fit.scores, fit.se)}
    runs = {
        "human": lambda: fit_hybrid_bt(len(m), a, b, y, yh, pi=pi, lam=0.0, clusters=g),
        "judge": lambda: fit_judge_bt(len(m), a, b, yh, clusters=g),
        "bias": lambda: fit_bias_bt(len(m), a, b, y, yh, pi=pi, clusters=g),
    }
    what = {"human": "human-only board", "judge": "judge-only board", "bias": "judge bias"}
    for name, run in runs.items():
        try:
            part = run()
            out[name] = (part.scores, part.se)
        except DegenerateFit as exc:
            out[name] = None
            notes.append(f"no {what[name]}: {exc}")
    return out, fit.lam


def _winrate(items: Items) -> tuple[Estimates, np.ndarray]:
    est = winrate_estimates(
        len(items.models), items.a, items.b, items.y, items.yhat, pi=items.pi,
        clusters=_clusters(items),
    )  # fmt: skip
    return {k: (v[0], v[1]) for k, v in est.items()}, est["hybrid"][2]


def _clusters(items: Items) -> np.ndarray | None:
    """Each item's prompt as its cluster when some prompt holds several items, else None."""
    prompts = np.array([k[0] for k in items.keys])
    return cluster_ids(prompts) if shares_clusters(prompts) else None


def _equivalent(est: Estimates, n_votes: int) -> int | None:
    human, hybrid = est.get("human"), est.get("hybrid")
    if human is None or hybrid is None:
        return None
    h, p = human[1], hybrid[1]
    ok = np.isfinite(h) & np.isfinite(p)
    if not ok.any() or np.mean(p[ok]) <= 0:
        return None
    return int(np.round(n_votes * (np.mean(h[ok]) / np.mean(p[ok])) ** 2))


def build_hybrid_leaderboard(
    human: Sequence[Vote],
    judge: Sequence[Vote],
    *,
    method: str = "bt",
    criterion: str | None = None,
    probabilities: Mapping[tuple[str, Key], float] | None = None,
    selected: Mapping[tuple[str, Key], bool] | None = None,
    alpha: float = 0.05,
) -> dict:
    """The hybrid board of one criterion (see the module docstring).

    ``probabilities``: each judged item's known probability of having been sent to humans
    (from :func:`eval.leaderboards.selection.read_selection`); ``selected``: whether it was.
    Selected items that got no human vote are taken as missing at random: the probabilities
    are scaled by the share of selected items that were labelled, and a note says so.
    """
    if method not in HYBRID_METHODS:
        raise ValueError(f"hybrid boards support --method {' or '.join(HYBRID_METHODS)}")
    notes: list[str] = []
    if probabilities is not None:  # the selection's items are the population
        judge = [v for v in judge if criterion is None or v.criterion == criterion]
        inside = [v for v in judge if (v.criterion, item_key(v)[0]) in probabilities]
        if not inside:
            raise ValueError(
                "no judge vote is on an item of the selection file: pass the judge votes "
                "the selection was drawn from"
            )
        if len(inside) < len(judge):
            notes.append(
                f"{len(judge) - len(inside)} judge votes on items outside the selection file "
                "are left out (the selection's items are the board's population)"
            )
        judge = inside
    items = pair_items(human, judge, criterion)
    if items.human_without_judge:
        notes.append(
            f"{items.human_without_judge} human-labelled items have no judge vote and are "
            "left out (the judge must label every item of the board)"
        )
    n_lab = int(items.labelled.sum())
    if n_lab < 2:
        raise ValueError(
            f"only {n_lab} items of criterion {items.criterion!r} have both human and judge "
            "votes; votes pair on prompt id, model pair and criterion: check that the two "
            "files name prompts the same way"
        )
    if probabilities is not None:
        attach_probabilities(items, probabilities)
        if selected is not None:
            n_sel = sum(1 for k in items.keys if selected.get((items.criterion, k)))
            if 0 < n_lab < n_sel and items.pi is not None:  # attach_probabilities set pi
                items.pi = items.pi * (n_lab / n_sel)
                notes.append(
                    f"{n_sel - n_lab} of the {n_sel} items selected for humans have no human "
                    "vote; taken as missing at random (selection probabilities scaled by "
                    f"{n_lab / n_sel:.3f})"
                )
    lab_items = np.bincount(items.a[items.labelled], minlength=len(items.models)) + np.bincount(
        items.b[items.labelled], minlength=len(items.models)
    )
    few = [f"{m} ({k})" for m, k in zip(items.models, lab_items, strict=True) if k < FEW_LABELS]
    if few:
        notes.append(
            f"models with fewer than {FEW_LABELS} human-labelled items have unreliable "
            f"intervals (large-sample approximation): {', '.join(few)}"
        )
    bt_lam: float | None = None
    lams: np.ndarray | None = None
    if method == "bt":
        estimates, bt_lam = _bt(items, notes)
    else:
        estimates, lams = _winrate(items)
    hybrid = estimates["hybrid"]
    if hybrid is None:
        raise AssertionError("every estimator fills the hybrid estimate")
    z = z_value(alpha)
    scores, _ = hybrid
    ranks = _ranks(scores)
    rows = []
    for i in np.argsort([np.inf if r is None else r for r in ranks], kind="stable"):
        row = {"model": items.models[i], "rank": ranks[i]}
        row.update(_entry(*hybrid, i, z, False) or {"score": None, "ci95": None})
        if lams is not None:  # winrate: one lambda per model
            row["lam"] = _r(lams[i])
        for name, key in (("bias", "judge_bias"), ("human", "human_only"), ("judge", "judge_only")):
            part = estimates.get(name)
            row[key] = None if part is None else _entry(*part, i, z, name != "bias")
        rows.append(row)
    equivalent = _equivalent(estimates, items.n_human_votes)
    return {
        "method": method,
        "estimator": "ppi++ weighted by selection probabilities"
        if items.pi is not None
        else "ppi++",
        "criterion": items.criterion,
        "lam": None if bt_lam is None else round(float(bt_lam), 4),
        "n_human_votes": items.n_human_votes,
        "n_judge_votes": items.n_judge_votes,
        "n_items": len(items.keys),
        "n_labelled": n_lab,
        "n_prompts": len({k[0] for k in items.keys}),
        "variance": "clustered by prompt" if _clusters(items) is not None else "independent items",
        "human_votes_equivalent": equivalent,
        "human_votes_saved": None if equivalent is None else equivalent - items.n_human_votes,
        "notes": notes,
        "models": rows,
    }


def criteria(human: Sequence[Vote], judge: Sequence[Vote]) -> list[str]:
    """Criteria that have both human and judge votes, sorted."""
    return sorted({v.criterion for v in human} & {v.criterion for v in judge})


def render_hybrid_table(board: dict) -> str:
    """A plain-text table: hybrid, human-only and judge-only side by side, and the bias."""
    eq = board["human_votes_equivalent"]
    head = (
        f"hybrid {board['method']} leaderboard ({board['estimator']}) · criterion "
        f"{board['criterion']!r} · {board['n_human_votes']} human votes on "
        f"{board['n_labelled']} items, {board['n_judge_votes']} judge votes on "
        f"{board['n_items']} items" + (f" · as tight as {eq} human votes" if eq is not None else "")
    )

    def cell(part: dict | None) -> str:
        if not part or part["score"] is None:
            return "-"
        ci = part["ci95"]
        return f"{part['score']:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else f"{part['score']:.2f}"

    lines = [head, f"{'rank':>4}  {'model':<20} {'hybrid':<24} {'human only':<24} "
                   f"{'judge only':<24} judge bias"]  # fmt: skip
    for r in board["models"]:
        rank = "-" if r["rank"] is None else str(r["rank"])
        lines.append(
            f"{rank:>4}  {r['model']:<20} {cell(r):<24} {cell(r['human_only']):<24} "
            f"{cell(r['judge_only']):<24} {cell(r['judge_bias'])}"
        )
    lines += [f"note: {n}" for n in board["notes"]]
    return "\n".join(lines)
