"""The ``judge`` CLI as documented: --format, coverage, help texts, errors that name the
verb and the path (README "Scoring from the command line")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from benchmarks import score as score_bench
from judge.cli.main import main
from judge.domain.result import Result
from judge.errors import InputError
from tests.conftest import submission


def write(folder: Path, data: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (48, 48), "red").save(folder / "img.png")
    path = folder / "sub.json"
    path.write_text(json.dumps(data))
    return path


def with_image(category: str = "CO", n_checks: int = 2) -> dict:
    data = submission(category, n_checks=n_checks, n_images=0)
    data["images"] = ["img.png"]
    return data


def fake_args(provider) -> list[str]:
    return ["--model", "openai/fake-judge", "--api-base", provider.base_url, "--api-key", "k"]


def test_format_json_is_the_default_and_carries_coverage(provider, tmp_path, capsys):
    path = write(tmp_path, with_image(n_checks=3))
    assert main(["score", str(path), *fake_args(provider), "--compact"]) == 0
    data = json.loads(capsys.readouterr().out)
    Result.model_validate(data)
    for side in data["objective"].values():
        assert side["coverage"] == {"scored": side["scored"], "total": 3}
        assert list(side)[:2] == ["rate", "coverage"]  # next to the rate


def test_format_text_says_what_was_decided_and_on_how_much(provider, tmp_path, capsys):
    path = write(tmp_path, with_image(n_checks=2))
    assert main(["score", str(path), *fake_args(provider), "--format", "text"]) == 0
    out = capsys.readouterr().out
    assert not out.lstrip().startswith("{")
    assert "Checklist (objective" in out and "Rubric (subjective)" in out
    assert "on 2 of 2 checkpoints scored" in out
    assert "fake-judge" in out
    assert "What a judge model would add" not in out  # a model was used
    assert max(len(line) for line in out.splitlines()) <= 100


def test_format_both_keeps_stdout_json_and_puts_the_summary_on_stderr(provider, tmp_path, capsys):
    path = write(tmp_path, with_image())
    assert main(["score", str(path), *fake_args(provider), "--format", "both"]) == 0
    cap = capsys.readouterr()
    Result.model_validate(json.loads(cap.out))
    assert "Checklist (objective" in cap.err


def test_format_text_offline_names_what_a_model_would_add(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("JUDGE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("JUDGE_MEMORY_DIR", raising=False)
    data = submission("CO", n_checks=2, n_images=0, prompt="a red cube on a white table")
    path = write(tmp_path, data)
    # nothing in this checklist is decidable offline: exit 4, and the summary still says why
    assert main(["score", str(path), "--backend", "local", "--format", "text"]) == 4
    out = capsys.readouterr().out
    assert "Judge: local" in out
    assert "What a judge model would add" in out
    assert "unscored (" in out  # each unscored group says why


def test_bad_format_exits_2_with_the_score_usage(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["score", str(tmp_path / "x.json"), "--format", "yaml"])
    assert exit_.value.code == 2
    assert "usage: judge score" in capsys.readouterr().err


def test_an_unknown_option_prints_the_verbs_usage_not_the_top_level(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["meta-eval", "--dataset", "avt", "--data", "x", "--no-such-flag"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: judge meta-eval") and "--no-such-flag" in err
    with pytest.raises(SystemExit):
        main(["memory", "list", "--bogus"])
    assert capsys.readouterr().err.startswith("usage: judge memory list")


def test_skills_help_names_the_groups(capsys):
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "@default" in out and "@avt" in out and "--format {json,text,both}" in out


def test_unknown_group_lists_only_groups_skills_accepts(provider, tmp_path, capsys):
    path = write(tmp_path, with_image())
    assert main(["score", str(path), *fake_args(provider), "--skills", "@nope"]) == 2
    err = capsys.readouterr().err
    assert "@default" in err and "@avt" in err
    assert "@objective" not in err and "@safety" not in err


def test_bench_help_shows_its_defaults(capsys):
    with pytest.raises(SystemExit):
        score_bench.main(["--help"])
    out = capsys.readouterr().out
    assert "default: 0.5" in out and "default: 12" in out and "default: 5" in out


def test_a_missing_relative_image_names_the_resolved_path_and_base_dir(make_judge, tmp_path):
    data = with_image()
    data["images"] = ["comic.png"]
    with pytest.raises(InputError) as err:
        make_judge().score(data, base_dir=tmp_path)
    msg = str(err.value)
    assert str(tmp_path / "comic.png") in msg and "base_dir" in msg
    with pytest.raises(InputError) as err:
        make_judge().score(data)  # no base_dir: the current folder, and how to fix it
    assert str(Path.cwd() / "comic.png") in str(err.value) and "base_dir" in str(err.value)


def test_unscored_image_dimensions_still_name_their_skill(make_judge):
    """No image (as in the README's service example): every image-side entry keeps `skill`."""
    result = make_judge().score(submission("OE", n_checks=1, n_images=0))
    image = result.subjective["image"]
    assert image and all(d.score is None and d.reason for d in image.values())
    assert all(d.skill and "@" in d.skill for d in image.values())
    im = make_judge().score(submission("IM", n_checks=1, n_images=1))
    assert all(d.skill for d in im.subjective["image"].values())
