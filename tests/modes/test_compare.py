"""The compare mode end to end through litellm against the fake provider."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from judge.errors import ConfigError, InputError
from tests.conftest import png_data_url
from tests.fakes.provider.responder import messages_text

RED, BLUE = png_data_url("red"), png_data_url("blue")


def comparison(**over: object) -> dict:
    data = {
        "id": "cmp-1",
        "prompt": "a red fox in the snow",
        "a": {"image": RED, "model": "flux"},
        "b": {"image": BLUE, "model": "sd3"},
    }
    data.update(over)
    return data


def edit_comparison(**over: object) -> dict:
    data = {
        "instruction": "Make it red.",
        "source_image": png_data_url("gray"),
        "a": {"image": RED, "model": "x"},
        "b": {"image": BLUE},
    }
    data.update(over)
    return data


def image_colours(body: dict) -> list[tuple[int, int, int]]:
    """The centre pixel of every image in a request, in the order shown."""
    out = []
    for message in body["messages"]:
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for part in content:
            if part.get("type") == "image_url":
                raw = base64.b64decode(part["image_url"]["url"].split(",", 1)[1])
                img = Image.open(io.BytesIO(raw)).convert("RGB")
                out.append(img.getpixel((img.width // 2, img.height // 2)))
    return out


def is_pairwise(body: dict) -> bool:
    return "FIRST image:" in messages_text(body)


def prefers_red(body: dict) -> dict:
    """A judge with a real preference: whichever position holds the red image."""
    first, _second = image_colours(body)
    return {"rationale": "the red one", "choice": "first" if first[0] > 200 else "second"}


async def test_position_biased_judge_never_produces_a_winner(make_judge, provider):
    provider.on(is_pairwise, {"rationale": "first looks better", "choice": "first"})
    result = await make_judge().acompare(comparison())
    assert result.status == "scored"
    assert set(result.criteria) == {"preference", "coherence", "alignment"}
    for crit in result.criteria.values():
        assert crit.winner == "tie"
        assert crit.position_consistent is False
        assert [(o.first, o.choice) for o in crit.orders] == [("a", "a"), ("b", "b")]


async def test_consistent_judge_wins_and_each_criterion_is_asked_in_both_orders(
    make_judge, provider
):
    provider.on(is_pairwise, prefers_red)
    result = await make_judge().acompare(comparison())
    assert result.models == {"a": "flux", "b": "sd3"}
    for crit in result.criteria.values():
        assert crit.winner == "a" and crit.position_consistent is True
    pair_requests = [b for b in provider.requests if is_pairwise(b)]
    assert len(pair_requests) == 6
    orders = sorted(
        tuple(c[0] > 200 for c in image_colours(b)) for b in pair_requests
    )  # (first is red, second is red)
    assert orders == [(False, True)] * 3 + [(True, False)] * 3
    # the model names never reach the judge
    assert not any("flux" in messages_text(b) or "sd3" in messages_text(b) for b in pair_requests)


async def test_prompt_shown_only_for_alignment(make_judge, provider):
    provider.on(is_pairwise, prefers_red)
    await make_judge().acompare(comparison(criteria=["preference", "alignment"]))
    texts = [messages_text(b) for b in provider.requests if is_pairwise(b)]
    with_prompt = [t for t in texts if "a red fox in the snow" in t]
    assert len(with_prompt) == 2 and all("describes" in t for t in with_prompt)


async def test_explicit_tie_option(make_judge, provider):
    provider.on(is_pairwise, {"rationale": "equal", "choice": "tie"})
    judge = make_judge()
    strict = await judge.acompare(comparison(criteria=["coherence"]), cache=False)
    assert strict.criteria["coherence"].winner is None  # "tie" is not in the strict schema
    provider.reset()
    provider.on(is_pairwise, {"rationale": "equal", "choice": "tie"})
    result = await judge.acompare(comparison(criteria=["coherence"]), compare_allow_tie=True)
    crit = result.criteria["coherence"]
    assert crit.winner == "tie" and crit.position_consistent is True
    schema = next(b for b in provider.requests if is_pairwise(b))["response_format"]
    assert "tie" in str(schema)


async def test_panel_votes_by_majority(make_judge, provider):
    def by_model(body: dict) -> dict:
        if body["model"] == "m3":  # the minority always says the blue image
            first, _ = image_colours(body)
            return {"rationale": "blue", "choice": "first" if first[2] > 200 else "second"}
        return prefers_red(body)

    provider.on(is_pairwise, by_model)
    result = await make_judge().acompare(
        comparison(criteria=["preference"]), panel=["openai/m1", "openai/m2", "openai/m3"]
    )
    crit = result.criteria["preference"]
    assert crit.winner == "a" and crit.position_consistent is True
    assert crit.orders[0].votes == {
        "openai/m1": "first",
        "openai/m2": "first",
        "openai/m3": "second",
    }
    assert crit.orders[0].agreement == pytest.approx(0.667)


async def test_model_failure_makes_the_criterion_unscored(make_judge, provider):
    provider.on(is_pairwise, "this is not json at all")
    result = await make_judge().acompare(comparison(criteria=["preference"]))
    crit = result.criteria["preference"]
    assert result.status == "partial"
    assert crit.winner is None and crit.cause == "failed" and "model call failed" in crit.reason


async def test_flagged_image_blocks_the_comparison(make_judge, provider):
    def screen(body: dict) -> dict:
        flagged = "Image to screen" in messages_text(body) and image_colours(body)[0][2] > 200
        return {"rationale": "x", "flagged": flagged, "categories": ["hate"] if flagged else []}

    provider.on(lambda b: "Screen the material" in messages_text(b), screen)
    result = await make_judge().acompare(comparison())
    assert result.status == "blocked" and result.safety.blocked_by == "b"
    assert result.criteria == {}


async def test_local_backend_says_a_model_is_needed():
    from judge.engine import Judge

    result = await Judge(backend="local").acompare(comparison(criteria=["alignment"]))
    crit = result.criteria["alignment"]
    assert result.status == "partial" and crit.cause == "no_model"
    assert "vision-language model" in crit.reason


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"b": {"model": "sd3"}}, "b.image", "required"),
        ({"a": {"image": "data:image/png;base64,aGVsbG8="}}, "a.image", ""),
        ({"b": {"image": RED}}, "b.image", "a comparison needs two different images"),
        ({"criteria": ["preference", "beauty"]}, "criteria[1]", "available"),
        ({"criteria": ["coherence", "coherence"]}, "criteria[1]", "twice"),
        ({"b": {"image": BLUE, "model": "flux"}}, "b.model", "both sides"),
        ({"criteria": []}, "criteria", ""),
        ({"colour": "red"}, "colour", "unknown field"),
    ],
)
def test_bad_comparisons_name_the_field(make_judge, change, field, words):
    with pytest.raises(InputError) as err:
        make_judge().prepare(comparison(**change), mode="compare")
    assert err.value.field == field
    assert words in err.value.message


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"b": {"image": RED}}, "b.image", "a comparison needs two different edits"),
        ({"b": {"image": BLUE, "model": "x"}}, "b.model", "both sides name the editor 'x'"),
        ({"criteria": ["preference"]}, "criteria[0]", "unknown edit criterion 'preference'"),
    ],
)
def test_bad_edit_comparisons_are_worded_for_edits(make_judge, change, field, words):
    with pytest.raises(InputError) as err:
        make_judge().prepare(edit_comparison(**change), mode="edit_compare")
    assert err.value.field == field
    assert words in err.value.message


def test_edit_comparison_views_include_the_source(make_judge):
    ctx = make_judge().prepare(edit_comparison(), mode="edit_compare")
    assert set(ctx.views) == {"source_image", "a", "b"}
    items = ctx.mode.plan(ctx)
    assert items[0].skill == "pair_instruction_following"
    assert items[0].views == (("source", "source_image"), ("first", "a"), ("second", "b"))


def test_mode_field_selects_compare(make_judge):
    ctx = make_judge().prepare({"mode": "compare", **comparison()})
    assert ctx.mode.name == "compare" and set(ctx.views) == {"a", "b"}


def test_unknown_mode_is_named(make_judge):
    with pytest.raises(InputError) as err:
        make_judge().prepare({"mode": "compair", **comparison()})
    assert err.value.field == "mode" and "did you mean 'compare'" in err.value.message


def test_llm_backend_without_model_is_a_config_error():
    from judge.engine import Judge

    with pytest.raises(ConfigError):
        Judge(backend="llm").prepare(comparison(), mode="compare")


def test_votes_from_a_result(make_judge, provider):
    provider.on(is_pairwise, prefers_red)
    result = make_judge().compare(comparison(prompt_id="p7", criteria=["preference"]))
    assert result.votes() == [
        {
            "prompt_id": "p7",
            "model_a": "flux",
            "model_b": "sd3",
            "winner": "a",
            "criterion": "preference",
            "annotator": "judge",
        }
    ]
