"""The edit-study file: ``[study]`` (with ``kind = "edit"``), ``[[writers]]``,
``[[editors]]``, ``[judge]`` and ``[run]`` (docs/edit-studies.md).

An edit study crosses a suite of edit tasks with *instruction writers* (who turn each task's
request into the instruction an editor gets: ``as_written`` passes it on, ``mllm`` has a
model rewrite it) and *editors* (configured as T2I backends are, :class:`eval.i2i.EditorSpec`);
the judge's edit mode grades every edit. Paths are relative to the file; keys never go in it
(``api_key_env`` names the variable). Unknown keys and bad values are errors naming the file
and the key.

Example:
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "edits.jsonl").write_text("")
    >>> _ = (d / "s.toml").write_text('''
    ... [study]
    ... kind = "edit"
    ... name = "demo"
    ... tasks = "edits.jsonl"
    ... [[writers]]
    ... id = "as-written"
    ... kind = "as_written"
    ... [[editors]]
    ... id = "demo"
    ... model = "builtin/editor"
    ... ''')
    >>> cfg = load_edit_study(d / "s.toml")
    >>> cfg.study.edits_per_instruction, [e.id for e in cfg.editors]
    (1, ['demo'])
    >>> is_edit_study(d / "s.toml")
    True
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from eval.i2i import EditorSpec
from eval.studies.config import (
    JUDGE_OPTIONS,
    JudgeSection,
    RunSection,
    StudyPaths,
    duplicate_ids,
    read_study_data,
    tasks_file_problems,
    validate_study,
)
from eval.t2i.spec import EntryId
from judge.domain.submission import MAX_IMAGES

EDIT_JUDGE_OPTIONS = JUDGE_OPTIONS | {"edit_samples", "edit_success_threshold"}
"""Judge settings an edit study may set under ``[judge.options]``."""


class EditStudySection(BaseModel):
    """``[study]``: the kind marker, the name, the task file, edits per instruction and
    whether the judge also compares the editors' edits pairwise."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["edit"]
    name: str = Field(min_length=1, max_length=128)
    tasks: str = Field(min_length=1)
    edits_per_instruction: int = Field(default=1, ge=1, le=MAX_IMAGES)
    compare: bool = False
    """also have the judge compare every two editors' edits of a task (``edit_compare``)"""
    description: str | None = None


class WriterSpec(BaseModel):
    """One instruction writer: ``as_written`` (the task's request, unchanged), ``mllm``
    (``model`` rewrites the request as an editing instruction; ``api_base``/``api_key_env`` as
    for every model entry) or ``human`` (``instructions``: a JSONL file of what people wrote,
    ``{"task_id", "prompt"}`` per line as ``judge study import-prompts`` writes it; relative
    to the study file)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: EntryId
    kind: Literal["as_written", "mllm", "human"]
    model: str | None = None
    instructions: str | None = None
    api_base: str | None = None
    api_key_env: str | None = None
    concurrency: int = Field(default=8, ge=1, le=256)

    def model_post_init(self, _: Any) -> None:
        if self.kind == "mllm" and not self.model:
            raise ValueError("an mllm writer needs a model (e.g. 'openai/gpt-4o')")
        if self.kind != "mllm" and (self.model or self.api_base or self.api_key_env):
            raise ValueError(f"an {self.kind} writer takes no model, api_base or api_key_env")
        if (self.kind == "human") != bool(self.instructions):
            raise ValueError("a human writer needs instructions (the JSONL file `judge study "
                             "import-prompts` writes); only a human writer takes it")  # fmt: skip


class EditJudgeSection(JudgeSection):
    """``[judge]`` of an edit study: as a study's, plus the edit mode's options."""

    known_options: ClassVar[set[str]] = EDIT_JUDGE_OPTIONS


class EditStudyConfig(StudyPaths, BaseModel):
    """A whole edit-study file, paths resolved against its folder."""

    model_config = ConfigDict(extra="forbid")

    study: EditStudySection
    writers: list[WriterSpec] = Field(min_length=1)
    editors: list[EditorSpec] = Field(min_length=1)
    judge: EditJudgeSection = Field(default_factory=EditJudgeSection)
    run: RunSection = Field(default_factory=RunSection)
    file: Path | None = None

    def instructions_path(self, spec: WriterSpec) -> Path:
        """A human writer's instructions file, resolved against the study file's folder."""
        return self.human_file(spec.instructions)


def is_edit_study(path: Path) -> bool:
    """Whether ``path`` is an edit-study file (``[study] kind = "edit"``); False for anything
    unreadable (the study loader then says what is wrong)."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    study = data.get("study")
    return isinstance(study, dict) and study.get("kind") == "edit"


def load_edit_study(path: Path) -> EditStudyConfig:
    """Read and check an edit-study file; raise :class:`StudyError` naming the file and key."""
    path = Path(path)
    data = read_study_data(path)
    base = path.resolve().parent
    problems = duplicate_ids(data, ("writers", "editors")) + tasks_file_problems(data, base)
    for i, w in enumerate(data.get("writers") or []):
        name = w.get("instructions") if isinstance(w, dict) else None
        if isinstance(name, str) and name and not (base / name).is_file():
            problems.append(f"writers[{i}].instructions: no such file {base / name}")
    return validate_study(EditStudyConfig, data, path, problems)
