"""Leaderboards from votes: one per criterion, with bootstrap CIs and rank probabilities.

The JSON shape is the Leaderboard contract of docs/design.md#votes-and-leaderboards plus
additive fields::

    {"method": "bt", "criterion": "preference", "n_votes": 1234, "n_prompts": 300,
     "bootstrap": 1000, "seed": 0, "notes": ["..."],
     "models": [{"model": "flux", "rank": 1, "score": 29.9, "ci95": [28.1, 31.6],
                 "wins": 10, "losses": 4, "ties": 1, "games": 15, "group": 0,
                 "rank_probabilities": [0.93, 0.07]}],
     "win_matrix": {"models": [...], "rates": [[null, 0.61], [0.39, null]]}}

``rank_probabilities[r]`` is the share of bootstrap resamples in which the model ranked
``r + 1``; ``win_matrix.rates[i][j]`` the share of games model i won against j (ties as half,
null when they never met); ``group`` numbers the connected parts of the comparison graph.

Example:
    >>> from eval.leaderboards.votes import Vote
    >>> votes = [Vote(f"p{i}", "x", "y", "a" if i % 3 else "b", "c") for i in range(30)]
    >>> board = build_leaderboard(votes, method="winrate", n_boot=50)
    >>> [(m["model"], m["rank"], m["score"]) for m in board["models"]]
    [('x', 1, 66.67), ('y', 2, 33.33)]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from eval.kit.stats.percentile import percentile_ci
from eval.leaderboards.methods import METHODS, Options
from eval.leaderboards.resample import rank_probabilities
from eval.leaderboards.tally import Tally
from eval.leaderboards.votes import Vote
from registry import UnknownName

MAX_PRIOR = 1e6
"""The most pseudo-games per model (``--prior``): more would drown any number of votes."""


def criteria_of(votes: Sequence[Vote]) -> list[str]:
    """The criteria present, in order of first appearance."""
    return list(dict.fromkeys(v.criterion for v in votes))


def _r(x: float, nd: int = 2) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), nd)


def _ranks(scores: np.ndarray) -> list[int]:
    """Competition ranks (1 = best); equal scores (to 1e-9) share a rank; nan ranks last."""
    key = np.where(np.isfinite(scores), np.round(scores, 9), -np.inf)
    return [1 + int(np.sum(key > k)) for k in key]


def win_matrix(w: np.ndarray) -> np.ndarray:
    """Share of games i won against j (nan where they never met)."""
    games = w + w.T
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(games > 0, w / np.where(games > 0, games, 1.0), np.nan)


def build_leaderboard(
    votes: Sequence[Vote],
    *,
    method: str = "bt",
    criterion: str | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    prior: float | None = None,
) -> dict:
    """The leaderboard of one criterion (``criterion=None``: votes must hold only one)."""
    try:
        point_fn, samples_fn = METHODS.get(method)
    except UnknownName as exc:
        raise ValueError(str(exc)) from None
    if prior is not None and not (isinstance(prior, int | float) and 0 <= prior <= MAX_PRIOR):
        raise ValueError(f"--prior must be a number between 0 and {MAX_PRIOR:g}, got {prior}")
    present = criteria_of(votes)
    if criterion is None:
        if len(present) > 1:
            raise ValueError(f"votes hold several criteria {present}; choose one")
        criterion = present[0] if present else None
    chosen = [v for v in votes if v.criterion == criterion]
    if not chosen:
        raise ValueError(f"no votes for criterion {criterion!r}; the votes have {present}")
    tally = Tally.from_votes(chosen)
    opts = Options(prior=prior, seed=seed)
    scores = point_fn(tally, opts)
    m = tally.n_models
    if n_boot > 0:
        samples = samples_fn(tally, n_boot, opts)
        ci = percentile_ci(samples)
        rank_p = rank_probabilities(samples)
    else:
        ci = np.full((m, 2), np.nan)
        rank_p = None
    groups = tally.groups()
    if groups.max() > 0:
        parts = [
            "{" + ", ".join(t for t, g in zip(tally.models, groups, strict=True) if g == k) + "}"
            for k in range(groups.max() + 1)
        ]
        opts.notes.insert(
            0,
            f"the models form {groups.max() + 1} groups that were never compared with each "
            f"other ({' '.join(parts)}); scores are comparable only within a group",
        )
    wins, losses, ties = tally.record()
    ranks = _ranks(scores)
    rows = []
    for i in np.argsort([r for r in ranks], kind="stable"):
        row = {
            "model": tally.models[i],
            "rank": ranks[i],
            "score": _r(scores[i]),
            "ci95": None if np.isnan(ci[i]).any() else [_r(ci[i, 0]), _r(ci[i, 1])],
            "wins": int(wins[i]),
            "losses": int(losses[i]),
            "ties": int(ties[i]),
            "games": int(wins[i] + losses[i] + ties[i]),
            "group": int(groups[i]),
        }
        if rank_p is not None:
            row["rank_probabilities"] = [round(float(x), 4) for x in rank_p[i]]
        rows.append(row)
    rates = win_matrix(tally.wins())
    return {
        "method": method,
        "criterion": criterion,
        "n_votes": len(chosen),
        "n_prompts": len(tally.prompts),
        "bootstrap": n_boot,
        "seed": seed,
        **opts.extra,
        "notes": opts.notes,
        "models": rows,
        "win_matrix": {
            "models": tally.models,
            "rates": [[_r(x, 4) for x in row] for row in rates],
        },
    }


def build_leaderboards(
    votes: Sequence[Vote], *, criterion: str | None = None, **kwargs: object
) -> list[dict]:
    """One leaderboard per criterion (or only ``criterion``'s; unknown ones name the choices)."""
    present = criteria_of(votes)
    if criterion is not None and criterion not in present:
        raise ValueError(f"unknown criterion {criterion!r}; the votes have {present}")
    names = [criterion] if criterion is not None else present
    return [build_leaderboard(votes, criterion=c, **kwargs) for c in names]  # type: ignore[arg-type]  # build_leaderboard checks its options


def render_table(board: dict) -> str:
    """A plain-text table of one leaderboard."""
    head = (
        f"{board['method']} leaderboard · criterion {board['criterion']!r} · "
        f"{board['n_votes']} votes on {board['n_prompts']} prompts"
    )
    lines = [head, f"{'rank':>4}  {'model':<24} {'score':>9}  {'95% CI':<19} {'W-L-T':<14} P(#1)"]
    for r in board["models"]:
        ci = f"[{r['ci95'][0]:.2f}, {r['ci95'][1]:.2f}]" if r["ci95"] else "-"
        p1 = f"{r['rank_probabilities'][0]:.2f}" if r.get("rank_probabilities") else "-"
        score = "-" if r["score"] is None else f"{r['score']:.2f}"
        wlt = f"{r['wins']}-{r['losses']}-{r['ties']}"
        lines.append(f"{r['rank']:>4}  {r['model']:<24} {score:>9}  {ci:<19} {wlt:<14} {p1}")
    lines += [f"note: {n}" for n in board["notes"]]
    return "\n".join(lines)
