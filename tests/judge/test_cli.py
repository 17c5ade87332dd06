"""The ``judge`` CLI: real subprocesses for the happy paths, in-process runs for bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from judge.cli.main import main
from judge.domain.result import Result
from tests.conftest import REPO, submission

STATUSES = {"scored", "partial", "blocked"}
CARDS = {
    "image_consistency",
    "instruction_following",
    "pair_image_consistency",
    "pair_instruction_following",
    "pair_visual_quality",
    "shift_metrics",
    "visual_quality",
    "alignment",
    "coherence",
    "preference",
    "color_lighting",
    "creative_elaboration",
    "image_check",
    "image_safety",
    "instructional_clarity",
    "intent_formalization",
    "mood_atmosphere",
    "prompt_check",
    "prompt_safety",
    "technical_flawlessness",
    "terminology_proficiency",
    "visual_composition",
    # the AVT study's own scales: shipped, disabled until selected with --skills
    "avt_appeal",
    "avt_prompt_matching",
    "avt_quality",
    "avt_realism",
}


# --------------------------------------------------------------------------- helpers


def clean_env(**extra: str) -> dict[str, str]:
    """The test process's environment without ``JUDGE_*``, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env.update(PYTHONPATH=str(REPO), LITELLM_LOCAL_MODEL_COST_MAP="True")
    env.update(extra)
    return env


def run_cli(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None):
    """Run ``python -m judge.cli.main ARGS`` as a real process."""
    return subprocess.run(
        [sys.executable, "-m", "judge.cli.main", *args],
        env=env if env is not None else clean_env(),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def write_submission(folder: Path, data: dict | None = None, name: str = "sub.json") -> Path:
    """A submission file whose single image is ``img.png`` next to it (a relative path)."""
    folder.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (64, 48), "red").save(folder / "img.png")
    if data is None:
        data = submission("CO", n_checks=2, n_images=0)
        data["images"] = ["img.png"]
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def assert_result(proc) -> dict:
    """A zero exit with a valid Result JSON on stdout."""
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    data = json.loads(proc.stdout)
    Result.model_validate(data)
    assert data["status"] in STATUSES
    return data


def models_seen(provider) -> set[str]:
    return {r["model"] for r in provider.requests}


# --------------------------------------------------------------------------- subprocess: score


@pytest.mark.slow
def test_score_prints_result_and_resolves_relative_images(provider, tmp_path):
    """Relative image paths resolve against the submission's folder, not the cwd."""
    path = write_submission(tmp_path / "sub")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = run_cli(
        "score",
        str(path),
        "--model",
        "openai/fake-judge",
        "--api-base",
        provider.base_url,
        "--api-key",
        "k",
        cwd=elsewhere,
    )
    data = assert_result(proc)
    assert data["status"] == "scored"
    assert data["selected_image"] == 0
    assert data["objective"]["image"]["scored"] == 2
    assert models_seen(provider) == {"fake-judge"}
    # the RGB PNG next to the submission reached the model (re-encoded as JPEG)
    assert any("data:image/jpeg;base64," in json.dumps(r) for r in provider.requests)


@pytest.mark.slow
def test_score_configured_by_env_only(provider, tmp_path):
    """JUDGE_MODEL / JUDGE_API_BASE / JUDGE_API_KEY are enough."""
    path = write_submission(tmp_path)
    env = clean_env(
        JUDGE_MODEL="openai/env-model", JUDGE_API_BASE=provider.base_url, JUDGE_API_KEY="env-key"
    )
    data = assert_result(run_cli("score", str(path), "--compact", env=env))
    assert data["status"] == "scored"
    assert provider.calls > 0
    assert models_seen(provider) == {"env-model"}


@pytest.mark.slow
def test_score_flags_beat_env(provider, tmp_path):
    """--model and --api-base win over JUDGE_MODEL and a dead JUDGE_API_BASE."""
    path = write_submission(tmp_path)
    env = clean_env(
        JUDGE_MODEL="openai/env-model",
        JUDGE_API_BASE="http://127.0.0.1:9/v1",
        JUDGE_API_KEY="env-key",
        JUDGE_MAX_RETRIES="0",
        JUDGE_TIMEOUT_S="60",
    )
    proc = run_cli(
        "score", str(path), "--model", "openai/flag-model", "--api-base", provider.base_url, env=env
    )
    data = assert_result(proc)
    assert data["status"] == "scored"
    assert provider.calls > 0
    assert models_seen(provider) == {"flag-model"}


@pytest.mark.slow
def test_llm_backend_without_model_exits_3(tmp_path):
    """The LLM backend asked for but no model anywhere: exit 3, a hint naming JUDGE_MODEL."""
    path = write_submission(tmp_path)
    proc = run_cli("score", str(path), "--backend", "llm")
    assert proc.returncode == 3
    assert "JUDGE_MODEL" in proc.stderr
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr


@pytest.mark.slow
def test_score_bad_image_exits_2_in_a_real_process(provider, tmp_path):
    """Bad input through the real entry point: exit 2, a one-line message, no traceback."""
    path = write_submission(tmp_path)
    (tmp_path / "img.png").write_bytes(os.urandom(4096))
    proc = run_cli(
        "score",
        str(path),
        "--model",
        "openai/fake-judge",
        "--api-base",
        provider.base_url,
        "--api-key",
        "k",
    )
    assert proc.returncode == 2
    assert "images[0]" in proc.stderr and "not a readable image" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""
    assert provider.calls == 0


# --------------------------------------------------------------------------- subprocess: skills


def test_skills_lists_the_cards():
    proc = run_cli("skills")
    assert proc.returncode == 0, proc.stderr
    names = {line.split()[0] for line in proc.stdout.splitlines()[1:] if line.strip()}
    assert names == CARDS
    assert "visual_composition" in proc.stdout and "prompt_safety" in proc.stdout
    assert "avt_realism" in proc.stdout and "(disabled)" in proc.stdout


def test_skills_json():
    proc = run_cli("skills", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert len(rows) == 26
    assert {r["name"] for r in rows} == CARDS
    assert {r["name"] for r in rows if not r["enabled"]} == {n for n in CARDS if "avt" in n}
    for row in rows:
        assert {"name", "kind", "modality", "categories", "version"} <= set(row)
        assert row["modality"] in {"prompt", "image", "pair", "edit", "edit_pair"}
        assert row["categories"] and set(row["categories"]) <= {"OE", "CO", "IM"}


# --------------------------------------------------------------------------- in-process: bad input


def _valid() -> dict:
    data = submission("CO", n_checks=2, n_images=0)
    data["images"] = ["img.png"]
    return data


def _json_case(mutate):
    """A builder writing a valid submission changed by ``mutate`` (and img.png beside it)."""

    def build(tmp: Path) -> Path:
        data = _valid()
        mutate(data)
        return write_submission(tmp, data)

    return build


def _raw_case(raw: bytes):
    def build(tmp: Path) -> Path:
        path = tmp / "sub.json"
        path.write_bytes(raw)
        return path

    return build


def _set(*keys, value):
    """``mutate`` that sets ``data[k1][k2]... = value``."""

    def mutate(data: dict) -> None:
        target = data
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value

    return mutate


def _no_checks(data: dict) -> None:
    cp = data["task"]["checklist"][0]
    del cp["prompt_check"], cp["image_check"]


def _duplicate_ids(data: dict) -> None:
    data["task"]["checklist"][1]["id"] = data["task"]["checklist"][0]["id"]


def _corrupt_image(tmp: Path) -> Path:
    path = write_submission(tmp, _valid())
    (tmp / "img.png").write_bytes(os.urandom(4096))
    return path


BAD_INPUT = [
    pytest.param(lambda tmp: tmp / "nope.json", ["nope.json", "does not exist"], id="missing-file"),
    pytest.param(lambda tmp: tmp, ["is a folder: give the JSON file inside it"], id="directory"),
    pytest.param(
        lambda tmp: tmp / ("s" * 300 + ".json"), ["invalid input: "], id="file-name-too-long"
    ),
    pytest.param(
        _raw_case(b'{"task": {},\n  oops}'), ["not valid JSON", "line 2", "column 3"], id="not-json"
    ),
    pytest.param(_raw_case(b"\xff\xfe\x00{}"), ["not UTF-8"], id="not-utf8"),
    pytest.param(_raw_case(b"[1, 2]"), ["JSON object", "list"], id="json-list"),
    pytest.param(
        _json_case(_set("task", "category", value="XX")), ["task.category:"], id="unknown-category"
    ),
    pytest.param(
        _json_case(lambda d: d.pop("prompt")), ["prompt:", "required"], id="missing-prompt"
    ),
    pytest.param(
        _json_case(_no_checks),
        ["task.checklist[0]", "'c1'", "prompt_check"],
        id="checkpoint-without-checks",
    ),
    pytest.param(
        _json_case(lambda d: d["task"]["checklist"][0].update(primitive="vibes")),
        ["task.checklist[0].primitive:"],
        id="unknown-primitive",
    ),
    pytest.param(
        _json_case(_duplicate_ids),
        ["task.checklist:", "'c1'", "more than once"],
        id="duplicate-checkpoint-ids",
    ),
    pytest.param(
        _json_case(_set("colour", value="red")), ["colour:", "unknown field"], id="unknown-field"
    ),
    pytest.param(
        _json_case(_set("prompt", value="x" * 20_001)), ["prompt:", "20000"], id="oversized-prompt"
    ),
    pytest.param(_corrupt_image, ["images[0]", "not a readable image"], id="corrupt-image"),
    pytest.param(
        _json_case(_set("images", value=["missing.png"])),
        ["images[0]", "missing.png", "does not exist"],
        id="image-not-found",
    ),
    pytest.param(
        _json_case(_set("images", value=["x" * 300 + ".png"])),
        ["images[0]"],
        id="image-name-too-long",
    ),
    pytest.param(
        _json_case(_set("images", value=["data:image/png;base64,@@not-base64!!"])),
        ["images[0]", "base64"],
        id="bad-base64",
    ),
    pytest.param(
        _json_case(_set("images", value=["https://example.com/a.png"])),
        ["images[0]", "URL images are disabled"],
        id="https-url",
    ),
    pytest.param(
        _json_case(_set("images", value=["http://example.com/a.png"])),
        ["images[0]", "URL images are disabled"],
        id="http-url",
    ),
    pytest.param(
        _json_case(_set("images", value=["ftp://example.com/a.png"])),
        ["images[0]", "scheme"],
        id="ftp-url",
    ),
    pytest.param(
        _json_case(_set("task", "target_image", value="gone.png")),
        ["task.target_image", "does not exist"],
        id="target-image-not-found",
    ),
]


@pytest.mark.parametrize(("build", "expected"), BAD_INPUT)
def test_bad_input_exits_2_with_a_clear_message(
    build, expected, provider, tmp_path, capsys, monkeypatch
):
    """Each bad input: exit 2, one ``judge: invalid input`` line naming the problem."""
    for var in [v for v in os.environ if v.startswith("JUDGE_")]:
        monkeypatch.delenv(var)
    path = build(tmp_path)
    code = main(
        [
            "score",
            str(path),
            "--model",
            "openai/fake-judge",
            "--api-base",
            provider.base_url,
            "--api-key",
            "k",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 2, err
    assert out == ""
    assert err.startswith("judge: invalid input: ")
    assert "Traceback" not in err
    for fragment in expected:
        assert fragment in err, (fragment, err)
    assert provider.calls == 0


@pytest.mark.parametrize("verb", ["score", "compare"])
def test_invalid_option_exits_2(verb, provider, tmp_path, capsys):
    """A flag's value the settings refuse: one line naming the flag (not the settings field),
    the value and the problem; exit 2, nothing judged."""
    path = write_submission(tmp_path)
    flags = ["--model", "openai/fake-judge", "--api-base", provider.base_url, "--timeout", "-1"]
    code = main([verb, str(path), *flags])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err == "judge: invalid option: --timeout -1.0: Input should be greater than 0\n"
    assert provider.calls == 0


def test_invalid_renamed_flag_is_named(tmp_path, capsys):
    """A flag whose settings field has another name (--k sets retrieval_k) is named as typed."""
    code = main(["score", str(write_submission(tmp_path)), "--backend", "local", "--k", "99"])
    _, err = capsys.readouterr()
    assert code == 2
    assert err.startswith("judge: invalid option: --k 99: Input should be less than or equal")


@pytest.mark.parametrize("verb", ["score", "compare"])
def test_bad_environment_variable_is_named(verb, tmp_path, capsys, monkeypatch):
    """A bad value from the environment: one line naming the variable, its value and what is
    expected (as ``judge serve`` says it), exit 2, no traceback; nothing is judged."""
    for var in [v for v in os.environ if v.startswith("JUDGE_")]:
        monkeypatch.delenv(var)
    monkeypatch.setenv("JUDGE_TIMEOUT_S", "abc")
    path = (
        write_submission(tmp_path) if verb == "score" else REPO / "examples/compare/comparison.json"
    )
    code = main([verb, str(path), "--backend", "local"])
    out, err = capsys.readouterr()
    assert code == 2, err
    assert out == ""
    assert err.startswith(f"judge {verb}: JUDGE_TIMEOUT_S='abc': Input should be a valid number")
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
