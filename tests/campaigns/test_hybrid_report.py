"""The campaign report's hybrid section (eval/campaigns/hybrid_report.py): humans' answers on
some items and the judge's on all, for rating and pairwise campaigns."""

from __future__ import annotations

import numpy as np

from eval.campaigns.hybrid_report import ASSUMPTION, hybrid_section
from eval.campaigns.record import CampaignRecord

MODELS = ["flux", "sd3", "dalle"]
QUALITY = {"flux": 3.8, "sd3": 3.2, "dalle": 2.6}


def campaign(kind: str, criterion: str, items: list[dict]) -> CampaignRecord:
    """A stored campaign of ``items`` (only what the hybrid section reads)."""
    return CampaignRecord.model_validate(
        {"id": "c", "kind": kind, "criterion": criterion, "card": {"question": "?"},
         "items": items}
    )  # fmt: skip


def rating_campaign(seed: int = 0, n_per_model: int = 300, rated_share: float = 0.2):
    """Every model has items of varying quality; the judge scores them all, one point too
    kindly to sd3; humans rated a random fifth (two ratings each)."""
    rng = np.random.default_rng(seed)
    items, rows, judged = [], [], {}
    for model in MODELS:
        for k in range(n_per_model):
            item = f"{model}-{k}"
            true = np.clip(QUALITY[model] + rng.normal(0, 0.9), 1, 5)
            items.append({"id": item, "model": model})
            judged[item] = float(np.clip(round(true + (1 if model == "sd3" else 0)), 1, 5))
            if rng.random() < rated_share:
                for who in ("ann-1", "ann-2"):
                    rating = int(np.clip(round(true + rng.normal(0, 0.5)), 1, 5))
                    rows.append({"item": item, "model": model, "rating": rating,
                                 "annotator": who, "excluded": False})  # fmt: skip
    rows.append({"item": "flux-0", "model": "flux", "rating": 1, "annotator": "bot",
                 "excluded": True})  # fmt: skip
    return campaign("rating", "appeal", items), rows, judged


def test_rating_campaign_gets_hybrid_means_with_the_judges_bias():
    record, rows, judged = rating_campaign()
    section = hybrid_section(record, rows, judged)
    assert section["method"] == "hybrid mean rating" and section["note"] == ASSUMPTION
    by_model = {r["group"]: r for r in section["models"]}
    assert [r["group"] for r in section["models"]] == ["flux", "sd3", "dalle"]
    sd3 = by_model["sd3"]
    lo = sd3["judge_bias"]["ci95"][0]
    assert 0.6 < sd3["judge_bias"]["mean"] < 1.4 and lo > 0  # the judge's extra point, seen
    assert sd3["judge_only"]["mean"] - sd3["mean"] > 0.6  # and removed from the hybrid
    for r in section["models"]:
        assert r["n_judge_items"] == 300 and 30 < r["n_human_items"] < 90
        width = r["ci95"][1] - r["ci95"][0]
        assert width < r["human_only"]["ci95"][1] - r["human_only"]["ci95"][0]
    # the excluded annotator's rating is left out: same result without it
    again = hybrid_section(record, [r for r in rows if not r["excluded"]], judged)
    assert again == section


def test_pairwise_campaign_gets_a_hybrid_board():
    rng = np.random.default_rng(1)
    strength = {"flux": 1.0, "sd3": 0.3, "dalle": -0.4}
    items, rows, judged = [], [], {}
    for k in range(600):
        a, b = rng.choice(MODELS, 2, replace=False)
        item = f"p{k}:{a}-vs-{b}"
        items.append({"id": item, "a": {"model": a, "image": "k"},
                      "b": {"model": b, "image": "k"}})  # fmt: skip
        p = 1 / (1 + np.exp(strength[b] - strength[a]))
        human_a = rng.random() < p
        judge_a = human_a if rng.random() < 0.8 else not human_a
        judged[f"{item}|{a}|{b}"] = "a" if judge_a else "b"
        if k % 5 == 0:
            rows.append({"prompt_id": item, "model_a": a, "model_b": b, "criterion": "preference",
                         "winner": "a" if human_a else "b", "excluded": False})  # fmt: skip
    record = campaign("pairwise", "preference", items)
    board = hybrid_section(record, rows, judged)
    assert board["estimator"] == "ppi++" and board["notes"][-1] == ASSUMPTION
    assert (board["n_labelled"], board["n_items"]) == (120, 600)
    assert [r["model"] for r in board["models"]] == ["flux", "sd3", "dalle"]
    assert hybrid_section(record, [], judged) is None
