"""docs/configuration.md: generated from the settings models, and current; every variable is
read by one model only and every field says what it does."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

from api.configuration import reference_sections
from judge.client_settings import ClientSettings
from judge.config_env import env_names
from judge.config_page import main, render, variables
from tests.docs.pages import DOCS

PAGE = DOCS / "configuration.md"


def test_the_committed_page_is_up_to_date() -> None:
    assert PAGE.read_text(encoding="utf-8") == render(reference_sections()), (
        "docs/configuration.md is stale: run `python -m api.configuration docs/configuration.md`"
    )


def test_the_check_mode_fails_on_a_stale_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "configuration.md"
    assert main([str(page), "--check"], reference_sections) == 1  # missing
    assert main([str(page)], reference_sections) == 0
    assert main([str(page), "--check"], reference_sections) == 0
    page.write_text(page.read_text(encoding="utf-8").replace("JUDGE_MODEL", "JUDGE_MODLE"))
    assert main([str(page), "--check"], reference_sections) == 1
    assert "is stale: run `python -m api.configuration" in capsys.readouterr().out


def test_no_variable_is_read_by_two_models() -> None:
    counts = Counter(name for name, _ in variables(reference_sections()))  # old names too
    assert not [n for n, c in counts.items() if c > 1]


def test_each_process_section_has_its_own_prefix() -> None:
    """The service, its workers and probes read their own prefixes; the engine shares
    ``JUDGE_`` with the floors below it only. A variable under the short prefix never falls
    in a longer one (an engine field ``serve_x`` would read ``JUDGE_SERVE_X``)."""
    from api.configuration import ServiceProcessSettings

    prefixes = {
        name: field.annotation.model_config.get("env_prefix")  # type: ignore[union-attr]
        for name, field in ServiceProcessSettings.model_fields.items()
    }
    assert prefixes == {"engine": "JUDGE_", "service": "JUDGE_SERVE_", "worker": "JUDGE_WORKER_",
                        "probes": "JUDGE_PROBE_", "backends": "JUDGE_", "skills": "JUDGE_",
                        "data": "JUDGE_"}  # fmt: skip
    sections = reference_sections()
    own = {s.model.__name__: str(s.model.model_config.get("env_prefix")) for s in sections}
    others = [p for p in own.values() if p != "JUDGE_"]  # the engine's floors share JUDGE_
    assert len(others) == len(set(others))
    for s in sections:
        for name in s.model.model_fields:
            variable = env_names(s.model, name)[0]
            under = [p for p in own.values() if variable.startswith(p)]
            if under:  # REDIS_URL is under none
                assert max(under, key=len) == own[s.model.__name__], variable


def test_every_field_has_a_description() -> None:
    missing = [
        f"{s.model.__name__}.{name}"
        for s in reference_sections()
        for name, field in s.model.model_fields.items()
        if not (field.description or "").strip()
    ]
    assert not missing


def test_the_page_lists_the_old_image_cap_names_under_the_new_ones() -> None:
    text = PAGE.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `JUDGE_IMAGE_MAX_BYTES`"))
    assert "`JUDGE_MAX_IMAGE_BYTES`" in row
    assert "| `JUDGE_BACKENDS` |" in text and "| `JUDGE_WORKER_LEASE_S` |" in text


def test_every_section_reads_old_names_the_same_way() -> None:
    """The memory's and the skills' models too (the machinery sits on the lowest floor): a
    field renamed there later warns like the service's and the engine's."""
    from judge.config_env import ProjectSettings

    own = ProjectSettings.settings_customise_sources.__func__  # type: ignore[attr-defined]
    for s in reference_sections():
        assert issubclass(s.model, ProjectSettings), s.model
        assert s.model.settings_customise_sources.__func__ is own, s.model  # type: ignore[attr-defined]


REPO = DOCS.parent
PRODUCT = ("judge", "skills", "memory", "api", "eval")


def settings_classes() -> set[str]:
    """Every settings model defined in the product packages (a class whose base is
    ``BaseSettings`` or ``ProjectSettings``), as ``module.Class``."""
    found = set()
    for package in PRODUCT:
        for path in (REPO / package).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            module = ".".join(path.relative_to(REPO).with_suffix("").parts)
            for node in tree.body:
                if not isinstance(node, ast.ClassDef):
                    continue
                bases = {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases}
                if bases & {"BaseSettings", "ProjectSettings"}:
                    found.add(f"{module}.{node.name}")
    return found


def test_every_settings_model_has_a_section() -> None:
    """So the page lists every variable, and the check above that no variable is claimed
    twice covers every model (a new model must be added to api.configuration)."""
    listed = {f"{s.model.__module__}.{s.model.__name__}" for s in reference_sections()}
    base = {"memory.config_env.ProjectSettings"}
    assert settings_classes() - base == listed


RAW_READERS: dict[str, str] = {
    "memory/config_env.py": "the settings source that reads the old names of renamed variables",
    "judge/llm/litellm_settings.py": "litellm's own variables, set before litellm is imported",
    "judge/llm/direct/routes.py": "the proxy variables and litellm's transport switches",
    "api/core/prometheus.py": "prometheus_client's PROMETHEUS_MULTIPROC_DIR",
    "memory/paths.py": "XDG_DATA_HOME, the XDG base directory spec's (under JUDGE_HOME's default)",
    "eval/kit/admin.py": "the admin key from the variable --admin-key-env names",
    "eval/studies/run_common.py": "the API keys from the variables api_key_env names",
    "eval/studies/prompters/mllm.py": "a prompter's key from the variable api_key_env names",
    "eval/studies/edits/writers.py": "a writer's key from the variable api_key_env names",
    "eval/t2i/litellm_backend.py": "a backend's key from the variable api_key_env names",
    "eval/tasks/models.py": "a model's key from the variable --api-key-env names",
    "eval/datasets/fetch/hub.py": "huggingface_hub's HF_ENDPOINT and HF_HUB_OFFLINE, read when "
    "a fetch runs (the library reads them once, at import)",
}
"""Product files that read the environment outside a settings model, each with its reason."""


def reads_environment(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if node.func.attr == "getenv" or (
                node.func.attr in ("get", "items") and getattr(owner, "attr", "") == "environ"
            ):
                return True
        if (
            isinstance(node, ast.Subscript)
            and getattr(node.value, "attr", "") == "environ"
            and isinstance(node.ctx, ast.Load)
        ):
            return True
    return False


def test_settings_are_read_through_the_models() -> None:
    """A knob is a field of a settings model; the few raw reads left are named with why."""
    readers = {
        path.relative_to(REPO).as_posix()
        for package in PRODUCT
        for path in (REPO / package).rglob("*.py")
        if reads_environment(path)
    }
    assert readers == set(RAW_READERS), (
        f"new: {sorted(readers - set(RAW_READERS))}, gone: {sorted(set(RAW_READERS) - readers)}; "
        "read a setting through a settings model (docs/configuration.md)"
    )


def test_a_folder_variable_has_one_reader(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """JUDGE_MEMORY_DIR and JUDGE_DATA_DIR are read by the memory floor's model only; the
    engine's memory_dir, the service's data_dir and the default store all follow it."""
    from pydantic_settings import EnvSettingsSource

    from api.core.settings import ServiceSettings
    from judge.config import JudgeSettings
    from judge.config_env import OwnVariables
    from memory.store import SHIPPED_DIR, MemoryStore

    monkeypatch.setenv("JUDGE_MEMORY_DIR", str(tmp_path / "mem"))
    monkeypatch.setenv("JUDGE_DATA_DIR", str(tmp_path / "svc"))
    assert JudgeSettings().memory_dir == str(tmp_path / "mem")
    assert JudgeSettings(memory_dir="other").memory_dir == "other"
    assert ServiceSettings().data_dir == tmp_path / "svc"
    store = MemoryStore()
    assert (store.root, store.read_only) == (tmp_path / "mem", [])
    own = OwnVariables(JudgeSettings, EnvSettingsSource(JudgeSettings))()
    assert "memory_dir" not in own  # the engine's model does not read the variable itself
    monkeypatch.delenv("JUDGE_MEMORY_DIR")
    assert JudgeSettings().memory_dir is None
    assert MemoryStore().read_only == [SHIPPED_DIR]


@pytest.mark.parametrize("verb", ["serve", "worker"])
def test_a_bad_variable_stops_the_service_with_its_name(
    verb: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every section a service process reads is built when it starts (ServiceProcessSettings):
    a worker setting no longer fails later, inside the app's start-up, with a traceback."""
    from judge.cli.main import main as judge

    monkeypatch.setenv("JUDGE_HOME", str(tmp_path))  # nothing may start: nothing is written
    monkeypatch.setenv("JUDGE_WORKER_LEASE_S", "abc")
    assert judge([verb, *(["--port", "0"] if verb == "serve" else [])]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"judge {verb}: JUDGE_WORKER_LEASE_S='abc': Input should be a valid")
    assert "Traceback" not in err and not list(tmp_path.iterdir())


def test_the_service_process_builds_every_section_on_the_page() -> None:
    from api.configuration import ServiceProcessSettings

    built = {type(v) for v in dict(ServiceProcessSettings()).values()}
    on_page = {s.model for s in reference_sections()}
    assert built == on_page - {ClientSettings}  # the client runs in the caller's process


def test_a_bad_engine_variable_stops_a_command_with_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from judge.cli.main import main as judge

    monkeypatch.setenv("JUDGE_RETRIEVAL_K", "abc")
    submission = REPO / "examples" / "co_106" / "submission.json"
    assert judge(["score", str(submission), "--backend", "local"]) == 2
    err = capsys.readouterr().err
    # one line naming the variable (not pydantic's field name) and its value
    assert err.startswith("judge score: JUDGE_RETRIEVAL_K='abc': "), err
    assert err.count("\n") == 1 and "Traceback" not in err
