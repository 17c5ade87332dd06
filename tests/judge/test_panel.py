"""Judge panels: several models, scores averaged, verdicts by majority, agreement reported."""

from __future__ import annotations

from tests.conftest import submission


def per_model(scores: dict[str, int], verdicts: dict[str, bool]):
    def reply(body):
        model = body["model"]
        schema = body["response_format"]["json_schema"]["name"]
        if schema == "SubjectiveAnswer":
            dims = body["response_format"]["json_schema"]["schema"]["required"]
            return {d: {"rationale": model, "score": scores[model]} for d in dims}
        if schema == "CheckAnswer":
            return {"rationale": model, "verdict": verdicts[model]}
        return {"rationale": "safe", "flagged": False, "categories": []}

    return reply


async def test_panel_averages_scores_and_takes_majority(make_judge, provider):
    provider.on(
        lambda b: True,
        per_model({"m1": 2, "m2": 4, "m3": 4}, {"m1": True, "m2": False, "m3": True}),
    )
    judge = make_judge(panel=["openai/m1", "openai/m2", "openai/m3"])
    result = await judge.ascore(submission("CO", n_checks=1))
    dim = result.subjective["prompt"]["instructional_clarity"]
    assert dim.score == 3.33 and dim.votes == {"openai/m1": 2, "openai/m2": 4, "openai/m3": 4}
    assert dim.agreement == 0.667
    item = result.objective["image"].items[0]
    assert item.verdict is True and item.agreement == 0.667
    assert result.provenance.judge_models == ["openai/m1", "openai/m2", "openai/m3"]


async def test_panel_tie_is_unscored(make_judge, provider):
    provider.on(lambda b: True, per_model({"m1": 3, "m2": 3}, {"m1": True, "m2": False}))
    result = await make_judge(panel="openai/m1,openai/m2").ascore(submission("CO", n_checks=1))
    item = result.objective["prompt"].items[0]
    assert item.verdict is None and "tied" in item.reason
    assert result.status == "partial"
