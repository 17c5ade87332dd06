"""Several images per submission: every image is scored, one is selected by an explicit rule."""

from __future__ import annotations

from judge.modes.score.selection import select
from tests.conftest import png_data_url, submission

RED, GREEN, BLUE = png_data_url("red"), png_data_url("green"), png_data_url("blue")


def image_url(body) -> str | None:
    for part in body["messages"][1]["content"]:
        if isinstance(part, dict) and part.get("type") == "image_url":
            return part["image_url"]["url"]
    return None


def by_image(verdicts: dict[str, bool], scores: dict[str, int]):
    """Checkpoint verdicts and subjective scores chosen per image colour."""
    from judge.io.images import load_image

    keys = {
        load_image(u, field="x").data_url: name
        for name, u in (("red", RED), ("green", GREEN), ("blue", BLUE))
    }

    def reply(body):
        name = keys.get(image_url(body) or "")
        schema = body["response_format"]["json_schema"]["name"]
        if schema == "CheckAnswer":
            return {"rationale": name or "prompt", "verdict": verdicts.get(name, True)}
        if schema == "SubjectiveAnswer":
            dims = body["response_format"]["json_schema"]["schema"]["required"]
            return {d: {"rationale": name or "prompt", "score": scores.get(name, 3)} for d in dims}
        return {"rationale": "safe", "flagged": False, "categories": []}

    return reply


async def test_every_image_scored_and_best_objective_selected(make_judge, provider):
    provider.on(
        lambda b: True,
        by_image({"red": False, "green": True, "blue": False}, {"red": 5, "green": 2, "blue": 4}),
    )
    sub = submission("CO", n_checks=2, n_images=3)
    sub["images"] = [RED, GREEN, BLUE]
    result = await make_judge().ascore(sub)
    assert len(result.images) == 3
    assert [im.objective.rate for im in result.images] == [0.0, 100.0, 0.0]
    assert result.selected_image == 1
    assert result.objective["image"].rate == 100.0
    assert result.subjective["image"]["mood_atmosphere"].score == 2
    assert result.selection.rule == "objective_then_subjective" and result.selection.n == 3


async def test_subjective_rule_and_ties(make_judge, provider):
    provider.on(lambda b: True, by_image({}, {"red": 3, "green": 4, "blue": 4}))
    sub = submission("OE", n_checks=1, n_images=3)
    sub["images"] = [RED, GREEN, BLUE]
    result = await make_judge(selection_rule="subjective_then_objective").ascore(sub)
    assert result.selected_image == 1  # green and blue tie: the lower index wins
    assert result.subjective["image"]["color_lighting"].score == 4


def test_select_rules():
    keys = [[50.0, 3.0], [75.0, 2.5], [75.0, 4.0]]
    assert select(keys, "objective_then_subjective") == 2
    assert select(keys, "first") == 0
    assert select([[-1.0, -1.0], [-1.0, 2.0]], "objective_then_subjective") == 1
