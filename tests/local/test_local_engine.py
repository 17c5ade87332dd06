"""The whole engine on the local backend: offline, honest about what it cannot judge."""

from __future__ import annotations

import json

import pytest

from judge.cli.main import main
from judge.config import JudgeSettings
from judge.domain.result import Result
from judge.engine import Judge
from judge.errors import ConfigError
from skills.local import NEEDS_VLM
from tests.conftest import png_data_url, submission
from tests.local.conftest import data_url, render_text

PROMPT = "A red cube on a white table under a banner reading GRAND OPENING"
CHECKLIST = [
    {
        "id": "text",
        "primitive": "text",
        "prompt_check": "The prompt includes the text 'GRAND OPENING'.",
        "image_check": "The banner reads 'GRAND OPENING'.",
    },
    {
        "id": "colour",
        "primitive": "attribute_binding",
        "prompt_check": "The prompt makes the cube red.",
        "image_check": "The cube is red.",
    },
    {
        "id": "place",
        "primitive": "spatial_relation",
        "prompt_check": "The prompt places the cube on the table.",
        "image_check": "The cube sits on the table.",
    },
]


def crafted(category: str = "CO", images: list[str] | None = None) -> dict:
    sub = submission(category, n_checks=3, prompt=PROMPT)
    sub["task"]["checklist"] = CHECKLIST
    if images is not None:
        sub["images"] = images
    return sub


@pytest.fixture
def judge(tmp_path, monkeypatch) -> Judge:
    """Backend auto, no model, an empty memory store: everything offline."""
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path / "cache"))
    return Judge(memory_dir=str(tmp_path / "store"))


def items(side) -> dict:
    return {i.id: i for i in side.items}


def test_auto_without_a_model_resolves_to_local():
    assert JudgeSettings().resolved_backend() == "local"
    assert JudgeSettings(model="openai/x").resolved_backend() == "llm"
    assert JudgeSettings(model="openai/x", backend="local").resolved_backend() == "local"


def test_default_submission_runs_offline(judge, offline):
    result = judge.score(submission("CO", n_checks=3))
    assert isinstance(result, Result)
    assert result.status == "partial"
    assert result.reason
    assert result.safety.passed is True
    assert result.safety.prompt is not None and result.safety.prompt.passed is True
    assert result.safety.image is not None and "Open-NSFW" in result.safety.image.rationale
    assert result.usage.llm_calls == 0
    assert result.provenance.judge_models == ["local"]
    assert result.provenance.options["backend"] == "local"
    for side in ("prompt", "image"):
        for dim in result.subjective[side].values():
            assert dim.score is None
            assert "needs a vision-language model" in dim.reason
    assert offline == []


def test_checklist_is_decided_where_sound_and_unscored_elsewhere(judge, offline):
    result = judge.score(crafted())
    prompt = items(result.objective["prompt"])
    assert prompt["text"].verdict is True
    assert prompt["colour"].verdict is True
    assert prompt["place"].verdict is None
    assert NEEDS_VLM in prompt["place"].reason
    assert result.objective["prompt"].rate == 100.0
    assert result.objective["prompt"].scored == 2 and result.objective["prompt"].unscored == 1

    image = items(result.objective["image"])
    assert image["text"].verdict is False  # a solid red image has no banner text
    assert "OCR found no text" in image["text"].rationale
    for cid in ("colour", "place"):
        assert image[cid].verdict is None
        assert image[cid].reason == NEEDS_VLM
    assert result.status == "partial"
    assert result.usage.llm_calls == 0
    assert offline == []


def test_per_modality_batching_gives_the_same_verdicts(judge, offline):
    per_check = judge.score(crafted())
    batched = judge.score(crafted(), checkpoint_batching="per_modality")
    for side in ("prompt", "image"):
        want = {i.id: (i.verdict, i.reason) for i in per_check.objective[side].items}
        got = {i.id: (i.verdict, i.reason) for i in batched.objective[side].items}
        assert got == want
    assert offline == []


def test_rendered_text_passes_the_image_check(judge, offline):
    poster = data_url(render_text(["GRAND OPENING"]))
    result = judge.score(crafted(images=[poster]))
    image = items(result.objective["image"])
    assert image["text"].verdict is True
    assert "GRAND OPENING" in image["text"].rationale
    assert result.objective["image"].rate == 100.0
    assert offline == []


def test_best_of_n_runs_offline(judge, offline):
    poster = data_url(render_text(["GRAND OPENING"]))
    result = judge.score(crafted(images=[png_data_url("blue"), poster]))
    assert len(result.images) == 2
    assert result.selected_image == 1  # the image whose text checkpoint passes
    assert offline == []


def test_imitation_task_runs_offline(judge, offline):
    result = judge.score(submission("IM", n_checks=2))
    assert result.status == "partial"
    assert result.category == "IM"
    assert result.safety.passed is True
    assert result.usage.llm_calls == 0
    assert offline == []


def test_submission_without_images_runs_offline(judge, offline):
    result = judge.score(crafted(images=[]))
    assert result.status == "partial"
    assert result.safety.passed is True
    assert items(result.objective["prompt"])["text"].verdict is True
    assert result.subjective["image"] == {} or all(
        d.score is None for d in result.subjective["image"].values()
    )
    assert result.usage.llm_calls == 0
    assert offline == []


def test_insulting_prompt_is_blocked_offline(judge, offline):
    result = judge.score(submission("OE", prompt="you stupid worthless idiot"))
    assert result.status == "blocked"
    assert result.safety.passed is False
    assert result.safety.prompt.categories == ["harassment"]
    assert offline == []


def test_explicit_local_backend_ignores_a_configured_model(tmp_path, offline):
    judge = Judge(model="openai/never-called", backend="local", memory_dir=str(tmp_path))
    result = judge.score(submission("CO", n_checks=1))
    assert result.provenance.judge_models == ["local"]
    assert result.usage.llm_calls == 0
    assert offline == []


def test_llm_backend_without_a_model_is_a_config_error(tmp_path):
    judge = Judge(backend="llm", memory_dir=str(tmp_path))
    with pytest.raises(ConfigError, match="JUDGE_MODEL"):
        judge.score(submission("CO", n_checks=1))


def test_cli_scores_with_the_local_backend(tmp_path, capsys, monkeypatch, offline):
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "submission.json"
    path.write_text(json.dumps(crafted()))
    code = main(["score", str(path), "--backend", "local", "--memory-dir", str(tmp_path / "s")])
    out = capsys.readouterr().out
    assert code == 0
    result = Result.model_validate_json(out)
    assert result.status == "partial"
    assert result.provenance.options["backend"] == "local"
    assert offline == []


def test_cli_llm_backend_without_a_model_exits_with_config_error(tmp_path, capsys):
    path = tmp_path / "submission.json"
    path.write_text(json.dumps(submission("CO", n_checks=1)))
    code = main(["score", str(path), "--backend", "llm"])
    assert code == 3
    assert "JUDGE_MODEL" in capsys.readouterr().err
