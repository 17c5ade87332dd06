"""The rating methods behind ``judge leaderboard --method``: ``bt``, ``elo``, ``winrate``.

Each method gives a point score per model from all votes and a (B, M) array of scores from
bootstrap resamples of the prompts; :mod:`eval.leaderboards.board` turns both into a table.

* ``bt`` — Bradley–Terry (Newman's update, scores sum to 100). When the maximum-likelihood
  scores do not exist (a model never lost, or groups of models never met) the fit is
  regularised with ``prior`` pseudo-games against a virtual average opponent (default 1 win
  and 1 loss per model) and the result says so; ``prior`` forces a fixed value instead.
* ``elo`` — Elo averaged over shuffled orders (K = 16, start 1000); a resample is replayed in
  one random order.
* ``winrate`` — percentage of games won, a tie counting as half a win.

A plugin adds a method (a :class:`Method`: its point and resample functions) with an entry
point in ``t2i_judge.leaderboard_methods`` (docs/extending.md).

Example:
    >>> METHODS.names()
    ['bt', 'elo', 'winrate']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from eval.leaderboards.bt import fit_bt
from eval.leaderboards.elo import elo_mean, elo_resamples
from eval.leaderboards.resample import boot_votes, boot_wins
from eval.leaderboards.tally import Tally, strongly_connected
from registry import Registry

DEFAULT_PRIOR = 1.0
ELO_ORDERS = 100


@dataclass
class Options:
    """Method options; ``prior=None`` means "regularise only where needed"."""

    prior: float | None = None
    seed: int | None = 0
    notes: list[str] = field(default_factory=list)
    extra: dict = field(default_factory=dict)


def _alpha(w: np.ndarray, opts: Options) -> np.ndarray:
    if opts.prior is not None:
        return np.full(w.shape[:-2], float(opts.prior))
    return np.where(strongly_connected(w), 0.0, DEFAULT_PRIOR)


def bt_point(tally: Tally, opts: Options) -> np.ndarray:
    w = tally.wins()
    alpha = float(_alpha(w, opts))
    opts.extra["prior"] = alpha
    opts.extra["regularised"] = alpha > 0
    if opts.prior is None and alpha > 0:
        never_lost = [m for m, row in zip(tally.models, w.T, strict=True) if row.sum() == 0]
        never_won = [m for m, row in zip(tally.models, w, strict=True) if row.sum() == 0]
        why = []
        if never_lost:
            why.append(f"never lost: {', '.join(never_lost)}")
        if never_won:
            why.append(f"never won: {', '.join(never_won)}")
        detail = f" ({'; '.join(why)})" if why else " (some group of models never lost to the rest)"
        opts.notes.append(
            "Bradley–Terry has no finite maximum-likelihood fit for these votes"
            f"{detail}; regularised with {DEFAULT_PRIOR:g} pseudo-win and pseudo-loss per model "
            "against a virtual average opponent"
        )
    return fit_bt(w, alpha)


def bt_samples(tally: Tally, n_boot: int, opts: Options) -> np.ndarray:
    out = []
    n_reg = 0
    for w in boot_wins(tally, n_boot, opts.seed):
        alpha = _alpha(w, opts)
        n_reg += int(np.count_nonzero(alpha))
        out.append(fit_bt(w, alpha))
    opts.extra["regularised_resamples"] = n_reg
    return np.concatenate(out) if out else np.zeros((0, tally.n_models))


def _winrate(w: np.ndarray) -> np.ndarray:
    won = w.sum(axis=-1)
    games = won + w.sum(axis=-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(games > 0, 100.0 * won / np.where(games > 0, games, 1.0), np.nan)


def winrate_point(tally: Tally, opts: Options) -> np.ndarray:
    return _winrate(tally.wins())


def winrate_samples(tally: Tally, n_boot: int, opts: Options) -> np.ndarray:
    parts = [_winrate(w) for w in boot_wins(tally, n_boot, opts.seed)]
    return np.concatenate(parts) if parts else np.zeros((0, tally.n_models))


def elo_point(tally: Tally, opts: Options) -> np.ndarray:
    opts.extra["orders"] = ELO_ORDERS
    return elo_mean(tally.a, tally.b, tally.outcome, tally.n_models, ELO_ORDERS, opts.seed)


def elo_samples(tally: Tally, n_boot: int, opts: Options) -> np.ndarray:
    resamples = list(boot_votes(tally, n_boot, opts.seed))
    return elo_resamples(tally.a, tally.b, tally.outcome, tally.n_models, resamples, opts.seed)


Point = Callable[[Tally, Options], np.ndarray]
Samples = Callable[[Tally, int, Options], np.ndarray]


class Method(NamedTuple):
    """A rating method: scores from all votes, and a (B, M) array from B resamples."""

    point: Point
    samples: Samples


METHODS = Registry[Method]("rating method", group="t2i_judge.leaderboard_methods")
METHODS.add("bt", Method(bt_point, bt_samples))
METHODS.add("elo", Method(elo_point, elo_samples))
METHODS.add("winrate", Method(winrate_point, winrate_samples))
