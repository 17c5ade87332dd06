"""The study file (docs/design.md#studies): its keys, paths relative to the file, errors naming
file and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from eval.studies.config import StudyError, cfg_settings, load_study
from judge.cli.main import main

GOOD = """
[study]
name = "demo"
tasks = "suite/tasks.jsonl"
images_per_prompt = 3

[[prompters]]
id = "gpt-skilled"
kind = "mllm"
model = "openai/gpt-4o"
condition = "skilled"
api_base = "http://127.0.0.1:9/v1"
api_key_env = "MY_PROMPTER_KEY"

[[prompters]]
id = "people"
kind = "human"
prompts = "suite/people.jsonl"

[[backends]]
id = "dalle3"
model = "openai/dall-e-3"
api_key_env = "MY_IMAGES_KEY"
size = "1024x1024"

[judge]
model = "openai/gpt-4o"
api_base = "http://127.0.0.1:9/v1"
api_key_env = "MY_JUDGE_KEY"
options = {selection_rule = "first", retrieval = "none"}

[run]
seed = 7
judge_concurrency = 4
"""


def write(tmp_path: Path, text: str = GOOD) -> Path:
    (tmp_path / "suite").mkdir(exist_ok=True)
    (tmp_path / "suite" / "tasks.jsonl").write_text("", encoding="utf-8")
    (tmp_path / "suite" / "people.jsonl").write_text("", encoding="utf-8")
    path = tmp_path / "study.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_full_study_file_loads_with_paths_relative_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir("/")
    cfg = load_study(write(tmp_path))
    assert cfg.tasks_path == tmp_path / "suite" / "tasks.jsonl"
    assert cfg.prompts_path(cfg.prompters[1]) == tmp_path / "suite" / "people.jsonl"
    assert cfg.study.images_per_prompt == 3 and cfg.run.seed == 7
    assert cfg.prompters[0].api_key_env == "MY_PROMPTER_KEY"
    assert cfg.backends[0].size == "1024x1024" and cfg.backends[0].api_key_env == "MY_IMAGES_KEY"
    s = cfg_settings(cfg, api_key="k")
    assert (s.model, s.api_base, s.selection_rule, s.retrieval) == (
        "openai/gpt-4o",
        "http://127.0.0.1:9/v1",
        "first",
        "none",
    )
    assert s.resolved_backend() == "llm" and s.api_key.get_secret_value() == "k"


def test_no_judge_model_means_the_local_backend(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_MODEL", "openai/gpt-4o")  # the environment does not change it
    text = GOOD.split("[judge]")[0]
    cfg = load_study(write(tmp_path, text))
    assert cfg.judge.model is None
    assert cfg_settings(cfg).resolved_backend() == "local"


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        ('name = "demo"', 'name = "demo"\nnmae = "x"', "study.nmae: unknown key"),
        ("images_per_prompt = 3", "images_per_prompt = 0", "study.images_per_prompt:"),
        ("images_per_prompt = 3", "images_per_prompt = 9", "study.images_per_prompt:"),
        (
            'condition = "skilled"',
            'condition = "expert"',
            "prompters[0].condition: unknown condition 'expert'; available: novice",
        ),
        (
            'condition = "skilled"',
            'condition = "skilled"\ntemperature = 2',
            "prompters[0].temperature: unknown key",
        ),
        ('kind = "human"', 'kind = "robot"', "prompters[1].kind:"),
        (
            'prompts = "suite/people.jsonl"',
            'prompts = "suite/nobody.jsonl"',
            "prompters[1].prompts: no such file",
        ),
        ('tasks = "suite/tasks.jsonl"', 'tasks = "suite/none.jsonl"', "study.tasks: no such file"),
        ('id = "people"', 'id = "gpt-skilled"', "prompters[1].id: 'gpt-skilled' is used twice"),
        ('size = "1024x1024"', 'size = "1024x1024"\nspeed = 3', "backends[0].speed: unknown key"),
        (
            'options = {selection_rule = "first", retrieval = "none"}',
            'options = {selection_rule = "best"}',
            "judge.options.selection_rule:",
        ),
        (
            'options = {selection_rule = "first", retrieval = "none"}',
            'options = {api_key = "sk-1"}',
            "judge.options: unknown option(s) api_key",
        ),
        ("seed = 7", "seed = -1", "run.seed:"),
        ("judge_concurrency = 4", "judge_concurency = 4", "run.judge_concurency: unknown key"),
        ("[run]", "[runn]", "runn: unknown key"),
    ],
)
def test_bad_keys_and_values_name_file_and_key(
    tmp_path: Path, old: str, new: str, where: str
) -> None:
    assert old in GOOD
    path = write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(StudyError) as err:
        load_study(path)
    assert f"{path}: {where}" in str(err.value)


def test_missing_sections_and_broken_toml(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.split("[[backends]]")[0])
    with pytest.raises(StudyError, match=r"study.toml: backends: Field required"):
        load_study(path)
    path.write_text("[study\nname=", encoding="utf-8")
    with pytest.raises(StudyError, match="not valid TOML"):
        load_study(path)
    with pytest.raises(StudyError, match="cannot read the study file"):
        load_study(tmp_path / "absent.toml")


def test_cli_exits_2_naming_the_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, GOOD.replace('condition = "skilled"', 'condition = "expert"'))
    assert main(["study", "run", str(path), "--out", str(tmp_path / "out")]) == 2
    assert "prompters[0].condition: unknown condition 'expert'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_cli_names_an_unset_key_variable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MY_PROMPTER_KEY", raising=False)
    (tmp_path / "suite").mkdir()
    path = write(tmp_path)
    (tmp_path / "suite" / "tasks.jsonl").write_text(
        '{"id": "oe_1", "category": "OE", "brief": "A fox.", "checklist": []}\n', encoding="utf-8"
    )
    assert main(["study", "run", str(path), "--out", str(tmp_path / "out")]) == 2
    assert "prompters[0].api_key_env: the variable MY_PROMPTER_KEY is not set" in (
        capsys.readouterr().err
    )
