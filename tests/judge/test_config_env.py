"""Renamed variables (judge.config_env): the old name still works and warns with the new name;
when both are set the new one wins and the warning says so. The image caps had two names (the
engine's ``JUDGE_IMAGE_MAX_*`` and the service's ``JUDGE_MAX_IMAGE_*``, which overrode the
engine's in the service): the engine's is the one name now, in the CLI and the service alike."""

from __future__ import annotations

import logging
import typing
import warnings
from pathlib import Path

import pytest
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings

from api.configuration import reference_sections
from api.judging.factory import engine_settings
from judge.config import JudgeSettings
from judge.config_env import deprecated_names, env_names
from memory import config_env

OLD, NEW = "JUDGE_MAX_IMAGE_BYTES", "JUDGE_IMAGE_MAX_BYTES"
OLD_PIXELS, NEW_PIXELS = "JUDGE_MAX_IMAGE_PIXELS", "JUDGE_IMAGE_MAX_PIXELS"


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (OLD, NEW, OLD_PIXELS, NEW_PIXELS):
        monkeypatch.delenv(name, raising=False)
    # the log names a renamed variable once per process: start each test as a fresh process
    monkeypatch.setattr(config_env, "_logged", set())


def test_the_old_name_works_and_warns_naming_the_new_one(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv(OLD, "5000")
    with pytest.warns(DeprecationWarning, match=f"{OLD} is deprecated.*rename it {NEW}"):
        settings = JudgeSettings()
    assert settings.image_max_bytes == 5000
    assert any(NEW in r.getMessage() and r.levelno == logging.WARNING for r in caplog.records)


def test_the_new_name_wins_over_the_old_and_the_warning_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(OLD, "5000")
    monkeypatch.setenv(NEW, "6000")
    with pytest.warns(DeprecationWarning, match=f"{OLD} is deprecated and ignored: {NEW}.*wins"):
        settings = JudgeSettings()
    assert settings.image_max_bytes == 6000


def test_arguments_beat_both_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(OLD, "5000")
    with pytest.warns(DeprecationWarning):
        assert JudgeSettings(image_max_bytes=7000).image_max_bytes == 7000


def test_the_new_name_alone_is_silent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(NEW, "6000")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert JudgeSettings().image_max_bytes == 6000


def test_the_old_value_is_validated_like_the_new(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(OLD, "10")  # under the floor of 1024 bytes
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="image_max_bytes"):
        JudgeSettings()


def test_a_bad_value_under_an_old_name_is_reported_under_that_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The error names the variable the operator wrote, with the name to move to."""
    from pydantic import ValidationError

    from api.core.settings import ServiceSettings

    monkeypatch.setenv("JUDGE_PORT", "abc")
    with pytest.warns(DeprecationWarning), pytest.raises(ValidationError) as caught:
        ServiceSettings()
    assert config_env.settings_error(caught.value).startswith(
        "JUDGE_PORT (now JUDGE_SERVE_PORT)='abc': Input should be a valid integer"
    )
    monkeypatch.setenv("JUDGE_SERVE_PORT", "xyz")  # the new name wins, and is named
    with pytest.warns(DeprecationWarning), pytest.raises(ValidationError) as caught:
        ServiceSettings()
    assert config_env.settings_error(caught.value).startswith("JUDGE_SERVE_PORT='xyz': ")


def test_the_service_uses_the_one_name_for_its_image_caps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The engine's name used to be ignored by the service (its own default won)."""
    monkeypatch.setenv(NEW, "6000")
    monkeypatch.setenv(NEW_PIXELS, "7000")
    settings = engine_settings()
    assert (settings.image_max_bytes, settings.image_max_pixels) == (6000, 7000)
    assert settings.allow_local_paths is False


def test_the_service_still_honours_its_old_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(OLD, "5000")
    monkeypatch.setenv(OLD_PIXELS, "8000")
    with pytest.warns(DeprecationWarning) as seen:
        settings = engine_settings()
    assert (settings.image_max_bytes, settings.image_max_pixels) == (5000, 8000)
    messages = " ".join(str(w.message) for w in seen)
    assert NEW in messages and NEW_PIXELS in messages


def test_env_names_follow_prefix_and_alias() -> None:
    from api.core.settings import ServiceSettings

    assert env_names(JudgeSettings, "image_max_bytes") == [NEW]
    assert env_names(ServiceSettings, "redis_url") == ["REDIS_URL"]


def test_the_redis_url_has_one_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """``JUDGE_REDIS_URL`` was a second name of ``REDIS_URL``: it still works, and warns."""
    from api.core.settings import ServiceSettings

    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("JUDGE_REDIS_URL", "redis://old:6379/0")
    with pytest.warns(DeprecationWarning, match="rename it REDIS_URL"):
        assert ServiceSettings().redis_url == "redis://old:6379/0"
    monkeypatch.setenv("REDIS_URL", "redis://new:6379/0")
    with pytest.warns(DeprecationWarning, match="REDIS_URL is also set and wins"):
        assert ServiceSettings().redis_url == "redis://new:6379/0"
    monkeypatch.delenv("JUDGE_REDIS_URL")
    assert ServiceSettings(redis_url="redis://arg:6379/0").redis_url == "redis://arg:6379/0"


def two_values(field: FieldInfo) -> list[tuple[str, object]]:
    """Two different values, the first not the default, each as a variable's text and as the
    field then holds it."""
    default = field.get_default(call_default_factory=True)
    if isinstance(default, bool):
        return [(str(not default).lower(), not default), (str(default).lower(), default)]
    if isinstance(default, int | float):
        return [(str(default + n), default + n) for n in (1, 2)]
    if isinstance(default, list):
        return [(f"k{n},k-two", [f"k{n}", "k-two"]) for n in (1, 2)]
    if int in typing.get_args(field.annotation):
        return [("7", 7), ("8", 8)]
    return [(f"redis://host-{n}:6379/0", f"redis://host-{n}:6379/0") for n in (1, 2)]


RENAMED = [
    pytest.param(s.model, name, old, id=old)
    for s in reference_sections()
    for name, field in s.model.model_fields.items()
    for old in deprecated_names(field)
]


@pytest.mark.parametrize(("model", "name", "old"), RENAMED)
def test_every_old_name_still_works_warns_and_loses_to_the_new(
    model: type[BaseSettings], name: str, old: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every renamed variable of every section (the service's ``JUDGE_*`` → ``JUDGE_SERVE_*``
    among them): the old name sets the field with a DeprecationWarning naming the new one;
    with both set the new one wins."""
    new = env_names(model, name)[0]
    (old_text, old_value), (new_text, new_value) = two_values(model.model_fields[name])
    monkeypatch.delenv(new, raising=False)
    monkeypatch.setenv(old, old_text)
    with pytest.warns(DeprecationWarning, match=f"{old} is deprecated: .* rename it {new} "):
        assert getattr(model(), name) == old_value
    monkeypatch.setenv(new, new_text)
    with pytest.warns(DeprecationWarning, match=f"{old} is deprecated and ignored: {new} "):
        assert getattr(model(), name) == new_value


NEW_SINCE_THE_RENAME = {"redis_may_lose_data", "max_confidence_k", "trust_policies"}
"""Service settings added after the JUDGE_SERVE_ rename: they never had an old name."""


def test_the_service_moved_under_its_own_prefix() -> None:
    from api.core.settings import ServiceSettings

    renamed = {env_names(ServiceSettings, n)[0]: deprecated_names(f)
               for n, f in ServiceSettings.model_fields.items() if deprecated_names(f)}  # fmt: skip
    assert renamed["JUDGE_SERVE_API_KEYS"] == ["JUDGE_API_KEYS"]
    assert all(
        new.startswith("JUDGE_SERVE_") and old == [f"JUDGE_{new.removeprefix('JUDGE_SERVE_')}"]
        for new, old in renamed.items()
        if new != "REDIS_URL"
    )
    never = [n for n, f in ServiceSettings.model_fields.items() if not deprecated_names(f)]
    # JUDGE_DATA_DIR is read on the memory floor; the others came after the rename
    assert "data_dir" in never
    assert set(never) - {"data_dir"} <= NEW_SINCE_THE_RENAME, never


def test_judge_serve_still_reads_an_old_name_and_says_which_to_use(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The one end-to-end use of old names: ``JUDGE_HOST`` still binds ``judge serve`` (here
    to a public address without keys, which it refuses before starting anything), with the
    warning naming ``JUDGE_SERVE_HOST``; the refusal names the new variables."""
    from judge.cli.main import main as judge

    monkeypatch.setenv("JUDGE_HOME", str(tmp_path))
    for name in (
        "JUDGE_SERVE_HOST",
        "JUDGE_SERVE_API_KEYS",
        "JUDGE_SERVE_ADMIN_KEYS",
        "JUDGE_SERVE_ALLOW_OPEN_PUBLIC",
        "JUDGE_API_KEYS",
        "JUDGE_ADMIN_KEYS",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("JUDGE_HOST", "0.0.0.0")
    with pytest.warns(DeprecationWarning, match="JUDGE_HOST is deprecated.*JUDGE_SERVE_HOST"):
        assert judge(["serve", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "refusing to serve on 0.0.0.0 without API keys: set JUDGE_SERVE_API_KEYS" in err
    assert "JUDGE_SERVE_ALLOW_OPEN_PUBLIC=true" in err and not list(tmp_path.iterdir())


def test_judge_serve_runs_the_inline_workers_the_variable_asks_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--workers-inline`` beats ``JUDGE_SERVE_INLINE_WORKERS``, which beats the verb's
    default of one (the flag used to default to 1 and hide the variable)."""
    import argparse

    from api.cli import serve_settings

    monkeypatch.delenv("JUDGE_SERVE_INLINE_WORKERS", raising=False)
    monkeypatch.delenv("JUDGE_INLINE_WORKERS", raising=False)
    assert serve_settings(argparse.Namespace()).inline_workers == 1
    monkeypatch.setenv("JUDGE_SERVE_INLINE_WORKERS", "3")
    assert serve_settings(argparse.Namespace()).inline_workers == 3
    assert serve_settings(argparse.Namespace(workers_inline=0)).inline_workers == 0
    monkeypatch.delenv("JUDGE_SERVE_INLINE_WORKERS")
    monkeypatch.setenv("JUDGE_INLINE_WORKERS", "2")  # the old name, with its warning
    with pytest.warns(DeprecationWarning, match="JUDGE_SERVE_INLINE_WORKERS"):
        assert serve_settings(argparse.Namespace()).inline_workers == 2


def test_the_services_probe_bounds_cannot_pass_the_clis(monkeypatch: pytest.MonkeyPatch) -> None:
    """``JUDGE_PROBE_MAX_*`` may tighten an option of ``ProbeParams``, never loosen it: each
    bound's ceiling is read from the option's own."""
    from pydantic import ValidationError

    from api.probes.budget import BOUNDED, ProbeBudget, cli_ceiling
    from eval.probing.params import ProbeParams

    for option in BOUNDED:
        field = "max_split_tests" if option == "max_split_tests" else f"max_{option}"
        ceiling = cli_ceiling(option)
        assert ProbeParams(topic="t", backend="b", **{option: ceiling})  # the CLI takes it
        assert ProbeBudget(**{field: ceiling})  # the service may allow as much
        with pytest.raises(ValidationError, match=field):
            ProbeBudget(**{field: ceiling + 1})
