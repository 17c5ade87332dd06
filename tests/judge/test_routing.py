"""Routing per task category, through the whole graph and the fake provider."""

from __future__ import annotations

from tests.conftest import submission

PROMPT_DIMS = {
    "instructional_clarity",
    "creative_elaboration",
    "terminology_proficiency",
    "intent_formalization",
}
IMAGE_DIMS = {"mood_atmosphere", "visual_composition", "color_lighting", "technical_flawlessness"}


def schema_names(provider) -> list[str]:
    return [r["response_format"]["json_schema"]["name"] for r in provider.requests]


async def test_co_runs_every_skill_and_checkpoint(make_judge, provider):
    result = await make_judge().ascore(submission("CO", n_checks=3))
    assert result.status == "scored"
    assert set(result.subjective["prompt"]) == PROMPT_DIMS
    assert set(result.subjective["image"]) == IMAGE_DIMS
    assert all(1 <= d.score <= 5 for d in result.subjective["image"].values())
    assert [i.id for i in result.objective["prompt"].items] == ["c1", "c2", "c3"]
    assert [i.id for i in result.objective["image"].items] == ["c1", "c2", "c3"]
    # 8 subjective + 3 + 3 checks + prompt safety + image safety
    assert provider.calls == 16 == result.usage.llm_calls


async def test_oe_scores_images_too(make_judge, provider):
    result = await make_judge().ascore(submission("OE", n_checks=2))
    assert set(result.subjective["image"]) == IMAGE_DIMS
    assert all(d.score is not None for d in result.subjective["image"].values())


async def test_im_gets_no_subjective_image_scores(make_judge, provider):
    result = await make_judge().ascore(submission("IM", n_checks=2))
    assert result.status == "scored"
    image = result.subjective["image"]
    assert set(image) == IMAGE_DIMS
    assert all(d.score is None and "imitation" in d.reason for d in image.values())
    assert result.objective["image"].scored == 2
    # no subjective image calls were made: 4 prompt dims + 2 + 2 checks + 2 safety
    assert provider.calls == 10
    # the target image is shown to the prompt-side subjective skills
    subj = [
        r
        for r in provider.requests
        if r["response_format"]["json_schema"]["name"] == "SubjectiveAnswer"
    ]
    assert all(any(p.get("type") == "image_url" for p in r["messages"][1]["content"]) for r in subj)


async def test_no_image_is_prompt_only(make_judge, provider):
    result = await make_judge().ascore(submission("CO", n_checks=2, n_images=0))
    assert result.status == "scored"
    assert all(
        d.score is None and d.reason == "no image submitted"
        for d in result.subjective["image"].values()
    )
    side = result.objective["image"]
    assert side.rate is None and side.scored == 0 and side.unscored == 2
    assert result.selected_image is None
    assert provider.calls == 4 + 2 + 1  # prompt dims, prompt checks, prompt safety


async def test_per_modality_batching_makes_one_call_per_modality(make_judge, provider):
    result = await make_judge(checkpoint_batching="per_modality").ascore(
        submission("CO", n_checks=5)
    )
    assert result.objective["prompt"].scored == 5
    assert result.objective["image"].scored == 5
    assert schema_names(provider).count("BatchCheckAnswer") == 2
    assert provider.calls == 8 + 2 + 2


async def test_checkpoint_with_only_an_image_check(make_judge, provider):
    sub = submission("CO", n_checks=2)
    sub["task"]["checklist"][1]["prompt_check"] = None
    result = await make_judge().ascore(sub)
    assert [i.id for i in result.objective["prompt"].items] == ["c1"]
    assert [i.id for i in result.objective["image"].items] == ["c1", "c2"]


async def test_per_modality_subjective_batching_scores_every_dimension_in_one_call(
    make_judge, provider
):
    judge = make_judge(subjective_batching="per_modality", checkpoint_batching="per_modality")
    result = await judge.ascore(submission("CO", n_checks=3))
    assert result.status == "scored"
    assert set(result.subjective["prompt"]) == PROMPT_DIMS
    assert set(result.subjective["image"]) == IMAGE_DIMS
    assert result.subjective["image"]["color_lighting"].skill == "color_lighting@1.0.0"
    assert schema_names(provider).count("SubjectiveAnswer") == 2
    assert provider.calls == 2 + 2 + 2  # subjective, checklists, safety: one per modality
    assert result.provenance.skills["mood_atmosphere"] == "1.0.0"
    assert not any(k.startswith("combined__") for k in result.provenance.skills)
    assert result.provenance.options["subjective_batching"] == "per_modality"
