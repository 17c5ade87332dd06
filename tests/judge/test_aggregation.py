"""Aggregation arithmetic and unscored handling."""

from __future__ import annotations

from judge.domain.result import CheckItem, ObjectiveSide
from tests.conftest import submission


def test_rate_excludes_unscored():
    items = [
        CheckItem(id="a", verdict=True),
        CheckItem(id="b", verdict=False),
        CheckItem(id="c", verdict=True),
        CheckItem(id="d", reason="timeout"),
    ]
    side = ObjectiveSide.from_items(items)
    assert (side.rate, side.scored, side.unscored, side.passed) == (66.7, 3, 1, 2)


def test_all_unscored_has_no_rate_and_a_reason():
    side = ObjectiveSide.from_items([CheckItem(id="a", reason="x")])
    assert side.rate is None and side.reason


def verdict_by_check(answers: dict[str, bool]):
    def reply(body):
        text = body["messages"][1]["content"]
        blob = " ".join(p.get("text", "") for p in text)
        for key, verdict in answers.items():
            if key in blob:
                return {"rationale": f"checked {key}", "verdict": verdict}
        return {"rationale": "default", "verdict": True}

    return reply


async def test_rates_follow_verdicts(make_judge, provider):
    provider.on(
        lambda b: b["response_format"]["json_schema"]["name"] == "CheckAnswer",
        verdict_by_check({"requirement 1.": False, "requirement 3.": False}),
    )
    result = await make_judge().ascore(submission("CO", n_checks=6))
    for side in ("prompt", "image"):
        obj = result.objective[side]
        assert (obj.scored, obj.passed, obj.rate) == (6, 4, 66.7)
        assert [i.verdict for i in obj.items] == [False, True, False, True, True, True]


async def test_failed_items_are_unscored_not_failures(make_judge, provider):
    # Every answer to checkpoint 2 is garbage: it ends unscored with a reason.
    provider.on("requirement 2.", "I refuse to answer in JSON")
    result = await make_judge(max_reasks=1).ascore(submission("CO", n_checks=4))
    assert result.status == "partial"
    for side in ("prompt", "image"):
        obj = result.objective[side]
        bad = next(i for i in obj.items if i.id == "c2")
        assert bad.verdict is None and "no valid answer" in bad.reason
        assert obj.scored == 3 and obj.unscored == 1 and obj.rate == 100.0
    assert result.usage.reasks == 2 and result.usage.failed_calls == 2


async def test_subjective_scores_are_kept_per_dimension(make_judge, provider):
    provider.on(
        lambda b: "Mood & Atmosphere" in b["messages"][0]["content"],
        {"mood_atmosphere": {"rationale": "gloomy", "score": 2}},
    )
    provider.on(
        lambda b: "Visual Composition" in b["messages"][0]["content"],
        {"visual_composition": {"rationale": "balanced", "score": 5}},
    )
    result = await make_judge().ascore(submission("OE"))
    assert result.subjective["image"]["mood_atmosphere"].score == 2
    assert result.subjective["image"]["mood_atmosphere"].rationale == "gloomy"
    assert result.subjective["image"]["visual_composition"].score == 5
    assert result.subjective["image"]["visual_composition"].skill == "visual_composition@1.0.0"


async def test_provenance_records_cards_models_and_options(make_judge, provider):
    result = await make_judge(checkpoint_batching="per_modality").ascore(submission("CO"))
    prov = result.provenance
    assert prov.judge_models == ["openai/fake-judge"]
    assert prov.skills["prompt_check"] == "1.0.0" and prov.skills["prompt_safety"] == "1.0.0"
    assert prov.options["checkpoint_batching"] == "per_modality"
