"""Mistakes a newcomer makes in the first minutes get an error that names them and says what
to do, instead of a silent wrong result: a setting's name misspelt as a keyword, one string
where a list is meant, a misspelt field in a submission file, a folder for a file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

import judge
from judge.cli.main import main
from judge.engine import Judge
from judge.errors import InputError


@pytest.fixture
def picture(tmp_path: Path) -> Path:
    path = tmp_path / "cube.png"
    Image.new("RGB", (64, 48), "red").save(path)
    return path


def test_a_misspelt_setting_is_refused_with_the_nearest_name(picture: Path) -> None:
    with pytest.raises(TypeError, match=r"unknown setting 'modle'; did you mean 'model'\?"):
        judge.score("a red cube", [str(picture)], modle="mock/judge")
    with pytest.raises(TypeError, match=r"Judge\(\) got an unknown setting 'retrival_k'"):
        Judge(retrival_k=2)


def test_one_string_is_no_checklist(picture: Path) -> None:
    """It used to become one checkpoint per character (16 for this sentence)."""
    with pytest.raises(InputError, match=r"checklist: expected a list, got one string"):
        judge.score("a red cube", [str(picture)], checklist="The cube is red.")
    with pytest.raises(InputError, match=r"criteria: expected a list"):
        judge.compare("a red cube", str(picture), str(picture), criteria="quality")


def test_a_misspelt_field_in_a_file_is_named_first(
    tmp_path: Path, picture: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = {"id": "t", "category": "OE", "brief": "a red cube"}
    path = tmp_path / "sub.json"
    path.write_text(json.dumps({"task": task, "promt": "a red cube", "images": [picture.name]}))
    assert main(["score", str(path), "--backend", "local"]) == 2
    err = capsys.readouterr().err
    assert "promt: unknown field; did you mean 'prompt'?" in err, err


def test_a_folder_is_not_a_submission_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["score", str(tmp_path), "--backend", "local"]) == 2
    err = capsys.readouterr().err
    assert "is a folder: give the JSON file inside it" in err, err


def test_help_names_every_leaderboard_action_and_shows_no_markup(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "(select)" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    text = capsys.readouterr().out
    assert "judge compare FILE: judge pairwise comparisons" in text and "``" not in text


def test_no_base_and_no_network_is_about_the_network() -> None:
    """With JUDGE_API_BASE unset, an unresolvable host is the machine's network, not a base
    the user never set."""
    from judge.llm.retry import fatal_message

    assert "JUDGE_API_BASE" not in fatal_message("unknown host", "openai/gpt-4o", None)
    assert "JUDGE_API_BASE" in fatal_message("unknown host", "openai/x", "http://gpu:8000/v1")
