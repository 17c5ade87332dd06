"""``judge campaign create --from-judge RESULTS --budget N``: ask humans about the items where
the judge is least sure, with known probabilities, so that hybrid boards stay unbiased.

The campaign's candidate pairs (from its source) that the judge compared form the
population; each gets a probability of going to humans from the judge's uncertainty
(:mod:`eval.leaderboards.selection`: position flips, split panels, ties, and model pairs
whose order is still unresolved; a floor for every item) and is drawn independently. Only
the drawn items go into the campaign; every candidate's probability is written to the
selection file, which ``judge leaderboard rank VOTES --judge-votes RESULTS --selection FILE``
reads to weight the humans' votes by it.

Example::

    body, rows = select_for_campaign(body, Path("compare-results.jsonl"), budget=200)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eval.leaderboards.pairing import Key, item_key
from eval.leaderboards.selection import PAIR_BOOST, select_items
from eval.leaderboards.votes import Vote, read_votes


def _key(item: dict[str, Any], criterion: str) -> Key:
    vote = Vote(item["id"], item["a"]["model"], item["b"]["model"], "a", criterion)
    return item_key(vote)[0]


def select_for_campaign(
    body: dict[str, Any],
    judge_results: Path,
    *,
    budget: int,
    floor: float | None = None,
    seed: int = 0,
    pair_boost: float = PAIR_BOOST,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The campaign body with only the drawn items, and the selection rows of every
    candidate item the judge compared."""
    if body["kind"] != "pairwise":
        raise ValueError("--from-judge works with --kind pairwise (the judge's compare votes)")
    criterion = body["criterion"]
    votes = [v for v in read_votes(judge_results) if v.criterion == criterion]
    if not votes:
        raise ValueError(f"{judge_results}: no judge votes for criterion {criterion!r}")
    candidates = {_key(item, criterion): item for item in body["items"]}
    judged = [v for v in votes if item_key(v)[0] in candidates]
    if not judged:
        raise ValueError(
            f"{judge_results}: the judge's votes name none of the campaign's pairs; they pair "
            "on prompt id (the source's prompt_id, or the compare's prompt_id / comparison_id) "
            "and the two models"
        )
    rows = select_items(judged, budget=budget, floor=floor, seed=seed, pair_boost=pair_boost)
    chosen = {(r["prompt_id"], r["model_a"], r["model_b"]) for r in rows if r["selected"]}
    body = dict(body, items=[item for key, item in candidates.items() if key in chosen])
    return body, rows
