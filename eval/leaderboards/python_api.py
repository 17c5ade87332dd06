"""``judge.leaderboard(...)``: rank models from votes, in Python.

Example:
    >>> votes = [{"prompt_id": f"p{i}", "model_a": "flux", "model_b": "sd3",
    ...           "winner": "a" if i % 3 else "b", "criterion": "preference"} for i in range(9)]
    >>> (board,) = leaderboard(votes, bootstrap=0)
    >>> [(m["model"], m["rank"]) for m in board["models"]]
    [('flux', 1), ('sd3', 2)]
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from eval.leaderboards.board import build_leaderboards
from eval.leaderboards.votes import Vote, read_votes, row_votes


def as_votes(votes: str | Path | Iterable[Any]) -> list[Vote]:
    """Votes from a file, or from rows: vote dicts, ComparisonResult dicts or models
    (anything with ``to_dict()``), or :class:`Vote` objects."""
    if isinstance(votes, str | Path):
        return read_votes(votes)
    out: list[Vote] = []
    for n, row in enumerate(votes):
        if isinstance(row, Vote):
            out.append(row)
            continue
        data = row.to_dict() if hasattr(row, "to_dict") else row
        out.extend(row_votes(data, f"votes[{n}]"))
    if not out:
        raise ValueError("no votes: every row was empty or undecided")
    return out


def leaderboard(
    votes: str | Path | Iterable[Any],
    *,
    method: str = "bt",
    criterion: str | None = None,
    bootstrap: int = 1000,
    seed: int | None = 0,
    prior: float | None = None,
    plots: str | Path | None = None,
) -> list[dict[str, Any]]:
    """One leaderboard per criterion (or only ``criterion``'s), as ``judge leaderboard rank
    --json`` prints them: ``{"method", "criterion", "n_votes", "models": [{"model", "rank",
    "score", "ci95", "wins", "losses", "ties"}], "notes", "win_matrix"}``.

    ``method`` is ``bt`` (Bradley–Terry), ``elo`` or ``winrate``; ``bootstrap`` resamples
    prompts for 95% intervals (0 skips them); ``plots`` names a folder for the figures.
    """
    boards = build_leaderboards(
        as_votes(votes), criterion=criterion, method=method, n_boot=bootstrap, seed=seed,
        prior=prior,
    )
    if plots is not None:
        from eval.leaderboards.plots import write_plots

        for board in boards:
            board["plots"] = [str(p) for p in write_plots(board, Path(plots))]
    return boards


def hybrid_leaderboard(
    human: str | Path | Iterable[Any],
    judge: str | Path | Iterable[Any],
    *,
    method: str = "bt",
    criterion: str | None = None,
    selection: str | Path | None = None,
    plots: str | Path | None = None,
) -> list[dict[str, Any]]:
    """The prediction-powered (PPI++) boards of few human and many judge votes, one per
    criterion both have, as ``judge leaderboard rank HUMAN --judge-votes JUDGE --json``
    prints them (see :mod:`eval.leaderboards.hybrid`).

    ``human``/``judge``: files or rows as for :func:`leaderboard`; ``method``: ``bt`` or
    ``winrate``; ``selection``: the file of ``judge leaderboard select`` when the human items
    were chosen by it; ``plots``: a folder for the hybrid / human-only / judge-only figure.

    Example:
        >>> judge = [{"prompt_id": f"p{i}", "model_a": "x", "model_b": "y",
        ...           "winner": "a" if i % 5 else "b", "criterion": "c"} for i in range(400)]
        >>> human = [dict(row, winner="a" if i % 3 else "b") for i, row in enumerate(judge)][::4]
        >>> (board,) = hybrid_leaderboard(human, judge, method="winrate")
        >>> board["estimator"], board["n_human_votes"], board["n_judge_votes"]
        ('ppi++', 100, 400)
    """
    from eval.leaderboards.hybrid import build_hybrid_leaderboard, criteria
    from eval.leaderboards.selection import read_selection

    human_votes, judge_votes = as_votes(human), as_votes(judge)
    probs, chosen = read_selection(selection) if selection is not None else (None, None)
    names = [criterion] if criterion else criteria(human_votes, judge_votes)
    if not names:
        raise ValueError("the human and judge votes share no criterion")
    boards = [
        build_hybrid_leaderboard(human_votes, judge_votes, criterion=c, method=method,
                                 probabilities=probs, selected=chosen)
        for c in names
    ]  # fmt: skip
    if plots is not None:
        from eval.leaderboards.hybrid_plots import write_hybrid_plot

        for board in boards:
            board["plots"] = [str(write_hybrid_plot(board, Path(plots)))]
    return boards
