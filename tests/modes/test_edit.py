"""The edit mode: criteria through litellm (fake provider), samples, calibration, success,
best-of-n, model-decided applicability, local estimates, bad input."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from skimage import data

from judge.engine import Judge
from judge.errors import InputError
from tests.fakes.provider.responder import messages_text

ASTRONAUT = Image.fromarray(data.astronaut())


def url(img: Image.Image, fmt: str = "PNG") -> str:
    buf = io.BytesIO()
    img.save(buf, fmt)
    return f"data:image/{fmt.lower()};base64," + base64.b64encode(buf.getvalue()).decode()


def tinted(img: Image.Image) -> Image.Image:
    arr = np.asarray(img).astype(float)
    arr[..., 2] *= 0.55  # a yellow cast
    return Image.fromarray(arr.clip(0, 255).astype("uint8"))


def edit(instruction: str = "Add a small badge to the jacket.", **over: object) -> dict:
    data_ = {
        "mode": "edit",
        "id": "ed-1",
        "instruction": instruction,
        "source_image": url(ASTRONAUT),
        "images": [url(tinted(ASTRONAUT))],
        "editor": "model-x",
    }
    data_.update(over)
    return data_


def is_criterion(body: dict) -> bool:
    return "EDITED image:" in messages_text(body) and "Rate the edit on" in messages_text(body)


def scores_by_criterion(table: dict[str, int]):
    def reply(body: dict) -> dict:
        name = messages_text(body).rsplit("Rate the edit on ", 1)[1].split(".")[0]
        return {"reasoning": f"looked at {name}", "score": table[name]}

    return reply


async def test_criteria_reason_first_and_success(make_judge, provider) -> None:
    table = {"instruction_following": 5, "image_consistency": 4, "visual_quality": 4}
    provider.on(is_criterion, scores_by_criterion(table))
    result = await make_judge().ascore(edit())
    assert result.mode == "edit" and result.status == "scored" and result.editor == "model-x"
    assert {k: v.score for k, v in result.criteria.items()} == table
    assert result.criteria["image_consistency"].rationale == "looked at image_consistency"
    assert result.success.passed is True and result.success.threshold == 4.0
    body = next(b for b in provider.requests if is_criterion(b))
    props = list(body["response_format"]["json_schema"]["schema"]["properties"])
    assert props == ["reasoning", "score"]
    kinds = [p["type"] for p in body["messages"][1]["content"]]
    assert kinds.count("image_url") == 2  # source and edited
    strict = await make_judge().ascore(edit(), edit_success_threshold=4.5)
    assert strict.success.passed is False and "image_consistency" in strict.success.reason


async def test_samples_are_averaged(make_judge, provider) -> None:
    answers = iter([3, 5, 4] * 10)
    provider.on(is_criterion, lambda body: {"reasoning": "r", "score": next(answers)})
    result = await make_judge().ascore(edit(), edit_samples=3, cache=False)
    calls = [b for b in provider.requests if is_criterion(b)]
    assert len(calls) == 9
    for crit in result.criteria.values():
        assert len(crit.votes) == 3
        assert crit.score == pytest.approx(sum(crit.votes.values()) / 3, abs=1e-3)


async def test_calibration_is_applied_before_success(make_judge, provider, tmp_path: Path) -> None:
    provider.on(is_criterion, {"reasoning": "r", "score": 4})
    cal = {
        "format": 1,
        "maps": {
            "visual_quality": {"method": "meanvar", "mu_p": 4, "sd_p": 1, "mu_h": 3, "sd_h": 1}
        },
    }
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(cal))
    result = await make_judge().ascore(edit(), calibration=str(path))
    vq = result.criteria["visual_quality"]
    assert vq.raw_score == 4 and vq.score == 3
    assert result.success.passed is False


async def test_best_of_n_picks_the_successful_edit(make_judge, provider) -> None:
    def reply(body: dict) -> dict:
        colours = []
        for part in body["messages"][1]["content"]:
            if part.get("type") == "image_url":
                raw = base64.b64decode(part["image_url"]["url"].split(",", 1)[1])
                colours.append(np.asarray(Image.open(io.BytesIO(raw)).convert("RGB")).mean())
        return {"reasoning": "r", "score": 5 if colours[1] > 100 else 2}  # brighter edit wins

    provider.on(is_criterion, reply)
    dark = Image.fromarray((np.asarray(ASTRONAUT) * 0.3).astype("uint8"))
    result = await make_judge().ascore(edit(images=[url(dark), url(ASTRONAUT.rotate(2))]))
    assert result.selected_image == 1
    assert [im.success.passed for im in result.images] == [False, True]
    assert result.selection.rule == "success_then_mean_criterion"


async def test_the_model_decides_metric_applicability(make_judge, provider) -> None:
    provider.on(
        lambda b: "Decide which measurements apply" in messages_text(b),
        {
            "reasoning": "a recolouring",
            "color_shift": False,
            "structure_distance": True,
            "face_identity": True,
            "text_rendering": False,
            "requested_text": "",
        },
    )
    result = await make_judge().ascore(edit("Make the jacket yellow."))
    cs = result.metrics["color_shift"]
    assert cs.applicable is False and "judge model decided" in cs.reason
    assert result.metrics["structure_distance"].applicable is True
    assert result.metrics["face_identity"].value > 0.9  # same person


def test_local_backend_estimates_from_shifts() -> None:
    judge = Judge(backend="local")
    same = judge.score(edit(images=[url(ASTRONAUT, "JPEG")]))
    tint = judge.score(edit())
    assert tint.metrics["color_shift"].value > 3 * same.metrics["color_shift"].value
    assert tint.criteria["image_consistency"].score < same.criteria["image_consistency"].score
    assert tint.criteria["instruction_following"].cause == "no_model"
    assert "Local estimate" in tint.criteria["visual_quality"].rationale
    assert tint.status == "partial"
    recolour = judge.score(edit("Change the colour of the suit to blue."))
    assert recolour.metrics["color_shift"].applicable is False


def test_flagged_source_blocks(make_judge, provider) -> None:
    def screen(body: dict) -> dict:
        img = next(p for p in body["messages"][1]["content"] if p.get("type") == "image_url")
        raw = base64.b64decode(img["image_url"]["url"].split(",", 1)[1])
        flagged = Image.open(io.BytesIO(raw)).size == (48, 48)
        return {"rationale": "x", "flagged": flagged, "categories": []}

    provider.on(lambda b: "Image to screen" in messages_text(b), screen)
    result = make_judge().score(edit(source_image=url(Image.new("RGB", (48, 48), "red"))))
    assert result.status == "blocked" and result.safety.blocked_by == "source"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"source_image": None}, "source_image"),
        ({"images": []}, "images"),
        ({"images": ["data:image/png;base64,bm9wZQ=="]}, "images[0]"),
        ({"instruction": "x" * 5000}, "instruction"),
        ({"instruction": 7}, "instruction"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_edits_name_the_field(make_judge, change: dict, field: str) -> None:
    body = {k: v for k, v in edit(**change).items() if v is not None}
    with pytest.raises(InputError) as err:
        make_judge().prepare(body)
    assert err.value.field == field


def test_different_sizes_and_grayscale_are_handled() -> None:
    gray = ASTRONAUT.convert("L")
    result = Judge(backend="local").score(
        edit(source_image=url(gray), images=[url(ASTRONAUT.resize((300, 200)))])
    )
    notes = json.dumps(result.metrics["color_shift"].details)
    assert "resiz" in notes.lower() or "size" in notes.lower()
    assert result.metrics["structure_distance"].value is not None


def test_judge_score_runs_an_edit_file(tmp_path: Path, capsys) -> None:
    from judge.cli.main import main

    ASTRONAUT.save(tmp_path / "src.png")
    tinted(ASTRONAUT).save(tmp_path / "out.png")
    body = {
        "mode": "edit",
        "instruction": "Add a badge.",
        "source_image": "src.png",
        "images": ["out.png"],
        "editor": "m",
    }
    (tmp_path / "edit.json").write_text(json.dumps(body))
    assert main(["score", str(tmp_path / "edit.json"), "--backend", "local", "--compact"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["mode"] == "edit" and result["metrics"]["color_shift"]["value"] > 1
