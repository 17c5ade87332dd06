"""Pair human and judge votes into items: one prompt, one unordered model pair, one criterion.

An item's label is the share of its votes that the alphabetically first model won (a tie
counts half); several votes on one item (several annotators, a judge panel) are averaged
into one label, because the item, not the vote, is the unit the statistics sample.

Campaign exports name a pairwise item ``PROMPT:A-vs-B``; such a ``prompt_id`` is read as
``PROMPT`` so that the humans' votes meet the judge's on the same prompt.

Example:
    >>> from eval.leaderboards.votes import Vote
    >>> human = [Vote("p1:x-vs-y", "x", "y", "a", "c", "ann")]
    >>> judge = [Vote("p1", "y", "x", "b", "c"), Vote("p2", "x", "y", "tie", "c")]
    >>> items = pair_items(human, judge)
    >>> items.keys, items.y.tolist(), items.yhat.tolist()
    ([('p1', 'x', 'y'), ('p2', 'x', 'y')], [1.0, nan], [1.0, 0.5])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from eval.leaderboards.tally import check_models
from eval.leaderboards.votes import Vote

Key = tuple[str, str, str]  # (prompt, first model, second model) for one criterion


def prompt_of(vote: Vote) -> str:
    """The prompt id of a vote, without a campaign item's ``:A-vs-B`` suffix."""
    for first, second in ((vote.model_a, vote.model_b), (vote.model_b, vote.model_a)):
        suffix = f":{first}-vs-{second}"
        if vote.prompt_id.endswith(suffix) and len(vote.prompt_id) > len(suffix):
            return vote.prompt_id[: -len(suffix)]
    return vote.prompt_id


def item_key(vote: Vote) -> tuple[Key, float]:
    """The item a vote belongs to and the vote's outcome for the item's first model."""
    first, second = sorted((vote.model_a, vote.model_b))
    won = {"a": 1.0, "b": 0.0, "tie": 0.5}[vote.winner]
    if vote.model_a != first:
        won = 1.0 - won
    return (prompt_of(vote), first, second), won


def _labels(votes: Sequence[Vote]) -> dict[Key, list[float]]:
    out: dict[Key, list[float]] = {}
    for v in votes:
        key, won = item_key(v)
        out.setdefault(key, []).append(won)
    return out


@dataclass
class Items:
    """Items with a judge label; ``y`` is nan where no human labelled the item."""

    criterion: str
    models: list[str]
    keys: list[Key]
    a: np.ndarray
    b: np.ndarray
    y: np.ndarray
    yhat: np.ndarray
    n_human_votes: int
    n_judge_votes: int
    human_without_judge: int  # human-labelled items the judge never saw (left out)
    pi: np.ndarray | None = None

    @property
    def labelled(self) -> np.ndarray:
        return ~np.isnan(self.y)


def pair_items(human: Sequence[Vote], judge: Sequence[Vote], criterion: str | None = None) -> Items:
    """Items of one criterion (``None``: the votes must hold only one)."""
    names = sorted({v.criterion for v in human} | {v.criterion for v in judge})
    if criterion is None:
        if len(names) != 1:
            raise ValueError(f"the votes hold several criteria {names}; choose one")
        criterion = names[0]
    human = [v for v in human if v.criterion == criterion]
    judge = [v for v in judge if v.criterion == criterion]
    if not human:
        raise ValueError(f"no human votes for criterion {criterion!r}")
    if not judge:
        raise ValueError(f"no judge votes for criterion {criterion!r}")
    h, j = _labels(human), _labels(judge)
    keys = sorted(j)
    models = sorted({k[1] for k in keys} | {k[2] for k in keys})
    check_models(len(models), criterion)
    index = {m: i for i, m in enumerate(models)}
    nan = float("nan")
    return Items(
        criterion=criterion,
        models=models,
        keys=keys,
        a=np.array([index[k[1]] for k in keys], dtype=np.int64),
        b=np.array([index[k[2]] for k in keys], dtype=np.int64),
        y=np.array([float(np.mean(h[k])) if k in h else nan for k in keys]),
        yhat=np.array([float(np.mean(j[k])) for k in keys]),
        n_human_votes=sum(len(h[k]) for k in keys if k in h),
        n_judge_votes=len(judge),
        human_without_judge=sum(1 for k in h if k not in j),
    )


def attach_probabilities(items: Items, probabilities: Mapping[tuple[str, Key], float]) -> Items:
    """Set ``items.pi`` from ``{(criterion, key): probability}``; every item needs one."""
    missing = [k for k in items.keys if (items.criterion, k) not in probabilities]
    if missing:
        p, a, b = missing[0]
        raise ValueError(
            f"{len(missing)} judged items have no selection probability, e.g. prompt {p!r}, "
            f"models {a!r} and {b!r}, criterion {items.criterion!r}: the selection file must "
            "cover every item the judge labelled"
        )
    items.pi = np.array([probabilities[(items.criterion, k)] for k in items.keys])
    return items
