"""The campaign report's hybrid board: the humans' answers combined with the judge's on the
same campaign's items (prediction-powered, PPI++), where the judge answered.

* rating campaigns: each model's hybrid mean rating (:func:`eval.kit.stats.hybrid_means`);
* pairwise campaigns: the hybrid Bradley–Terry board (:mod:`eval.leaderboards.hybrid`).

Items the judge answered but no kept human did are the judge-only set. The intervals are
honest when the items humans answered are a random sample of the campaign's items (campaigns
serve the least-answered items first, which is close to that; the report says it assumes it).

Example::

    report["hybrid"] = hybrid_section(record, rows, judged)   # None when nothing pairs
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from eval.campaigns.record import CampaignRecord
from eval.kit.stats.hybrid_means import hybrid_means
from eval.leaderboards.hybrid import build_hybrid_leaderboard
from eval.leaderboards.votes import Vote

ASSUMPTION = (
    "assumes the items humans answered are a random sample of the campaign's items; the "
    "judge answered the others"
)


def hybrid_section(
    record: CampaignRecord, rows: Sequence[Mapping[str, Any]], judged: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The hybrid board from the kept human rows and the judge's answers (``{unit: answer}``
    as in the report: item id for ratings, ``item|a|b`` for votes); None when no item has
    both."""
    kept = [r for r in rows if not r["excluded"]]
    items = {i.id: i for i in record.real_items()}
    if record.kind == "rating":
        human = [{"item": r["item"], "group": r["model"], "rating": r["rating"]} for r in kept]
        judge = [
            {"item": k, "group": items[k].model, "score": v}
            for k, v in judged.items()
            if k in items
        ]
        models = hybrid_means(human, judge)
        if not models:
            return None
        return {"method": "hybrid mean rating", "estimator": "ppi++", "note": ASSUMPTION,
                "models": models}  # fmt: skip
    if record.kind != "pairwise":
        return None
    human_votes = [
        Vote(r.get("item") or r["prompt_id"], r["model_a"], r["model_b"], r["winner"],
             r["criterion"])
        for r in kept
    ]
    judge_votes = []
    for unit, winner in judged.items():
        item_id, a, b = unit.rsplit("|", 2)
        if item_id in items:
            judge_votes.append(Vote(item_id, a, b, winner, record.criterion, "judge"))
    if not human_votes or not judge_votes:
        return None
    try:
        board = build_hybrid_leaderboard(human_votes, judge_votes, method="bt")
    except ValueError as exc:
        return {"error": str(exc)}
    board["notes"].append(ASSUMPTION)
    return board
