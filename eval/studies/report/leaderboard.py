"""A Bradley–Terry leaderboard of the prompters, from pseudo-pairwise outcomes.

Every (task, backend) is one "prompt" of :mod:`eval.leaderboards`: for each pair of prompters
scored there, the higher value of the measure wins and equal values tie
(:func:`eval.leaderboards.pseudo.pseudo_votes`); the board is then
:func:`eval.leaderboards.build_leaderboard` with ``method="bt"``, its CIs from a bootstrap over
the (task, backend) units. One board per measure; a measure with no pair scored is null with
a reason.

Example:
    >>> from eval.studies.report.load import Item
    >>> mk = lambda t, p, v: Item(t, "OE", p, "b", "scored", None, None, None,
    ...                           {"subjective_prompt": v, "subjective_image": None,
    ...                            "objective_prompt_rate": None, "objective_image_rate": None},
    ...                           [], 1)
    >>> items = [mk(t, p, v) for t in "abcd" for p, v in (("x", 4.0), ("y", 3.0), ("z", 2.0))]
    >>> boards = prompter_leaderboards(items, n_boot=0, seed=0, measures=("subjective_prompt",))
    >>> [m["model"] for m in boards["subjective_prompt"]["models"]]
    ['x', 'y', 'z']
"""

from __future__ import annotations

from collections.abc import Sequence

from eval.leaderboards import build_leaderboard
from eval.leaderboards.pseudo import pseudo_votes
from eval.studies.report.load import AGGREGATED, MEASURES, Item


def votes_for(items: Sequence[Item], measure: str) -> list:
    """Pseudo-pairwise votes of one measure (prompt id = ``task@backend``)."""
    rows = [
        {"prompt_id": f"{it.task_id}@{it.backend}", "model": it.prompter, "score": v}
        for it in items
        if it.status in AGGREGATED and (v := it.values[measure]) is not None
    ]
    return pseudo_votes(rows, metric="score", criterion=measure)


def prompter_leaderboards(
    items: Sequence[Item],
    *,
    n_boot: int,
    seed: int | None,
    measures: Sequence[str] = MEASURES,
) -> dict[str, dict]:
    """One BT leaderboard (eval.leaderboards shape) per measure, or ``{"reason"}`` when none."""
    out: dict[str, dict] = {}
    for measure in measures:
        votes = votes_for(items, measure)
        if not votes:
            out[measure] = {
                "models": [],
                "reason": "no two prompters were scored on the same task and backend",
            }
            continue
        out[measure] = build_leaderboard(votes, method="bt", n_boot=n_boot, seed=seed)
    return out
