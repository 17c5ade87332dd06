"""The study file (docs/design.md#studies): ``[study]``, ``[[prompters]]``, ``[[backends]]``,
``[judge]`` and the runner's own ``[run]`` options.

Paths (``tasks``, a human prompter's ``prompts``) are relative to the study file. Every model
entry (prompters, backends, the judge) takes ``api_base`` and ``api_key_env`` (the *name* of the
variable holding its key; keys never go in the file). Unknown keys and bad values are errors
that name the file and the key, e.g. ``study.toml: prompters[1].condition: unknown condition
'expert'; available: novice, skilled``.

Example:
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "tasks.jsonl").write_text("")
    >>> _ = (d / "s.toml").write_text('''
    ... [study]
    ... name = "demo"
    ... tasks = "tasks.jsonl"
    ... [[prompters]]
    ... id = "gpt-novice"
    ... kind = "mllm"
    ... model = "openai/gpt-4o"
    ... condition = "novice"
    ... [[backends]]
    ... id = "demo-renderer"
    ... model = "builtin/renderer"
    ... ''')
    >>> cfg = load_study(d / "s.toml")
    >>> cfg.study.images_per_prompt, cfg.judge.model is None
    (4, True)
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from eval.studies.prompters import PrompterSpec
from eval.studies.prompters.conditions import available_conditions
from eval.t2i import BackendSpec
from judge.config import JudgeSettings
from judge.domain.submission import MAX_IMAGES

#: judge settings a study may set under ``[judge.options]`` (those that change how it judges)
JUDGE_OPTIONS = {
    "checkpoint_batching",
    "subjective_batching",
    "selection_rule",
    "speculative_safety",
    "safety",
    "safety_on_error",
    "temperature",
    "retrieval",
    "retrieval_k",
    "skills",
    "timeout_s",
    "max_retries",
    "llm_concurrency",
    "memory_dir",
    "calibration",
}


JUDGE_CALLS_PER_ITEM = 32
"""Judge model calls one item makes at most at once (4 images, default cards), for the cap."""


C = TypeVar("C", bound=BaseModel)


class StudyError(ValueError):
    """A study file that cannot be used; the message names the file and the key."""


class StudySection(BaseModel):
    """``[study]``: the name, the task suite and how many images each prompt gets."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=128)
    tasks: str = Field(min_length=1)
    images_per_prompt: int = Field(default=4, ge=1, le=MAX_IMAGES)
    description: str | None = None


class JudgeSection(BaseModel):
    """``[judge]``: as ``judge score``; no ``model`` (and no ``panel``) = the local backend."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = None
    panel: list[str] = Field(default_factory=list)
    api_base: str | None = None
    api_key_env: str | None = None
    backend: Literal["auto", "llm", "local"] = "auto"
    options: dict[str, Any] = Field(default_factory=dict)
    known_options: ClassVar[set[str]] = JUDGE_OPTIONS
    """The judge settings ``options`` may set (a study kind's section may allow more)."""

    @field_validator("options")
    @classmethod
    def _known_options(cls, value: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(value) - cls.known_options)
        if unknown:
            known = ", ".join(sorted(cls.known_options))
            raise ValueError(f"unknown option(s) {', '.join(unknown)}; known: {known}")
        return value


class RunSection(BaseModel):
    """``[run]``: the runner's options (all optional)."""

    model_config = ConfigDict(extra="forbid")

    seed: int = Field(default=0, ge=0, description="base seed of image generation")
    judge_concurrency: int = Field(default=32, ge=1, le=1024, description="items judged at once")
    max_cost_usd: float | None = Field(default=None, gt=0, description="as --max-cost")


class StudyPaths:
    """The paths of a study file's config (a mixin: the config has ``file`` and
    ``study.tasks``), shared by every kind of study."""

    if TYPE_CHECKING:  # the config's own fields (not declared here: pydantic would reorder)
        file: Path | None
        study: Any

    @property
    def base_dir(self) -> Path:
        """The folder relative paths resolve against."""
        return self.file.parent if self.file else Path.cwd()

    @property
    def tasks_path(self) -> Path:
        return self.base_dir / self.study.tasks

    def human_file(self, name: str | None) -> Path:
        """A file a human entry names (prompts, instructions), resolved against the folder."""
        assert name is not None
        return self.base_dir / name


class StudyConfig(StudyPaths, BaseModel):
    """A whole study file, paths resolved against its folder."""

    model_config = ConfigDict(extra="forbid")

    study: StudySection
    prompters: list[PrompterSpec] = Field(min_length=1)
    backends: list[BackendSpec] = Field(min_length=1)
    judge: JudgeSection = Field(default_factory=JudgeSection)
    run: RunSection = Field(default_factory=RunSection)
    file: Path | None = None

    def prompts_path(self, spec: PrompterSpec) -> Path:
        """A human prompter's prompts file, resolved."""
        return self.human_file(spec.prompts)


def _loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def schema_errors(path: Path, exc: ValidationError) -> list[str]:
    """One ``FILE: key.path: problem`` line per error of a study file's schema."""
    lines = []
    for err in exc.errors():
        loc = _loc(tuple(p for p in err["loc"] if not str(p).startswith("function-")))
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown key (check its spelling and the section it is in)"
        lines.append(f"{path}: {loc or '(top level)'}: {msg}")
    return lines


def _entry_problems(data: dict[str, Any], base: Path) -> list[str]:
    """Cross-entry checks on the file as read (so they are reported with the schema's own
    errors): unique ids, known conditions, files that exist."""
    problems = duplicate_ids(data, ("prompters", "backends"))
    for i, spec in enumerate(e for e in data.get("prompters") or [] if isinstance(e, dict)):
        kind, condition = spec.get("kind"), spec.get("condition")
        if kind == "mllm" and condition is not None and condition not in available_conditions():
            known = ", ".join(available_conditions())
            problems.append(
                f"prompters[{i}].condition: unknown condition {condition!r}; available: {known}"
            )
        prompts = spec.get("prompts")
        if kind == "human" and isinstance(prompts, str) and not (base / prompts).is_file():
            problems.append(f"prompters[{i}].prompts: no such file {base / prompts}")
    return problems + tasks_file_problems(data, base)


def duplicate_ids(data: dict[str, Any], sections: tuple[str, ...]) -> list[str]:
    """``section[i].id: 'x' is used twice`` for each entry reusing an id of its section."""
    problems: list[str] = []
    for section in sections:
        seen: set[Any] = set()
        for i, entry in enumerate(e for e in data.get(section) or [] if isinstance(e, dict)):
            if entry.get("id") in seen:
                problems.append(f"{section}[{i}].id: {entry['id']!r} is used twice")
            seen.add(entry.get("id"))
    return problems


def tasks_file_problems(data: dict[str, Any], base: Path) -> list[str]:
    """``study.tasks: no such file …`` when the tasks file named is missing."""
    study = data.get("study")
    tasks = study.get("tasks") if isinstance(study, dict) else None
    if isinstance(tasks, str) and not (base / tasks).is_file():
        return [f"study.tasks: no such file {base / tasks}"]
    return []


def settings_problems(cfg: Any) -> list[str]:
    """The ``[judge]`` options as judge settings (any study config with ``judge`` and
    ``run`` sections)."""
    try:
        cfg_settings(cfg)
    except ValidationError as exc:
        return [f"judge.options.{_loc(err['loc'])}: {err['msg']}" for err in exc.errors()]
    return []


def cfg_settings(cfg: StudyConfig, api_key: str | None = None) -> JudgeSettings:
    """The judge's settings: the environment's defaults under ``[judge]``. The judge model,
    endpoint and backend come from the study only (a ``JUDGE_MODEL`` in the environment does
    not turn a local-judge study into an LLM one)."""
    j = cfg.judge
    data = {**JudgeSettings().model_dump(), **j.options}
    if "llm_concurrency" not in j.options:  # enough for every item judged at once
        data["llm_concurrency"] = min(1024, cfg.run.judge_concurrency * JUDGE_CALLS_PER_ITEM)
    llm = bool(j.model or j.panel)
    data.update(
        model=j.model,
        panel=list(j.panel),
        api_base=j.api_base,
        api_key=api_key,
        backend=j.backend if j.backend != "auto" else ("llm" if llm else "local"),
    )
    return JudgeSettings.model_validate(data)


def read_study_data(path: Path) -> dict[str, Any]:
    """A study file's TOML table; :class:`StudyError` naming the file when it cannot be read,
    is not TOML, or sets the reserved key ``file``."""
    try:
        with Path(path).open("rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise StudyError(f"{path}: cannot read the study file ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise StudyError(f"{path}: cannot read the study file ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise StudyError(f"{path}: not valid TOML ({exc})") from None
    if "file" in data:
        raise StudyError(f"{path}: file: unknown key (check its spelling and the section it is in)")
    return data


def validate_study(model: type[C], data: dict[str, Any], path: Path, problems: list[str]) -> C:
    """``data`` as a ``model`` config (``file`` set to ``path``); every problem at once in one
    :class:`StudyError`: the schema's, then ``problems`` (the cross-entry checks), then the
    ``[judge]`` options'."""
    try:
        cfg = model.model_validate({**data, "file": path.resolve()})
    except ValidationError as exc:
        raise StudyError(
            "\n".join([*schema_errors(path, exc), *(f"{path}: {p}" for p in problems)])
        ) from None
    problems = problems + settings_problems(cfg)
    if problems:
        raise StudyError("\n".join(f"{path}: {p}" for p in problems))
    return cfg


def load_study(path: Path) -> StudyConfig:
    """Read and check a study file; raise :class:`StudyError` naming the file and key."""
    data = read_study_data(path)
    path = Path(path)
    # every problem at once: the schema's, then the cross-entry ones (ids, conditions, files)
    return validate_study(StudyConfig, data, path, _entry_problems(data, path.resolve().parent))
