"""Task suites: a JSONL file of tasks, one per line: ``task`` objects plus tags
(docs/design.md#submission-and-result-mode-score).

Each line is a judge task (``id``, ``category``, ``brief``, ``target_image``, ``checklist``)
with ``tags`` (``primitives``, ``topic``, ``difficulty``) and, for checklists a model wrote,
``checklist_source`` (which generator, model and brief they came from). ``target_image`` is
a path relative to the suite file; IM tasks need one, the others must not have one. Every
problem is reported as ``FILE:LINE: field: problem``, all of them at once.

Example:
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> line = {"id": "oe_1", "category": "OE", "brief": "A calm poster.",
    ...         "checklist": [{"id": "c1", "primitive": "abstract_intent",
    ...                        "prompt_check": "Calm is asked for.", "image_check": "It is calm."}]}
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = Path(d) / "tasks.jsonl"
    ...     _ = path.write_text(json.dumps(line) + "\\n")
    ...     [(t.id, t.tags.primitives) for t in load_suite(path)]
    [('oe_1', [<Primitive.abstract_intent: 'abstract_intent'>])]
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

from PIL import Image
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails

from judge.config import JudgeSettings
from judge.domain.task import Category, Primitive, Task
from judge.errors import InputError
from judge.io.data_urls import data_url
from judge.io.images import load_pil
from memory.io.atomic import write_atomic

MAX_SUITE_BYTES = 64 * 1024 * 1024
MAX_LINE_BYTES = 256 * 1024
MAX_TARGET_BYTES = 10 * 1024 * 1024
MAX_REPORTED_ERRORS = 50
NOT_OBSERVABLE = frozenset(
    {Primitive.audience_intent, Primitive.semantic_negation, Primitive.hard_constraint}
)
"""Primitives an image alone cannot show (IM tasks normally leave them out)."""


class SuiteError(ValueError):
    """A suite file that cannot be used; ``errors`` holds one ``FILE:LINE: …`` per problem."""

    def __init__(self, errors: list[str]):
        self.errors = list(errors)
        shown = self.errors[:MAX_REPORTED_ERRORS]
        more = len(self.errors) - len(shown)
        super().__init__("\n".join(shown) + (f"\n… and {more} more" if more > 0 else ""))


class TaskTags(BaseModel):
    """What a task exercises: its challenge primitives, topic and difficulty (free text)."""

    model_config = ConfigDict(extra="forbid")

    primitives: list[Primitive] = Field(default_factory=list, max_length=len(Primitive))
    topic: str | None = Field(default=None, max_length=200)
    difficulty: str | None = Field(default=None, max_length=40)

    @field_validator("primitives")
    @classmethod
    def _once_each(cls, value: list[Primitive]) -> list[Primitive]:
        return list(dict.fromkeys(value))


class ChecklistSource(BaseModel):
    """Where a generated checklist came from; hand-written checklists have none."""

    model_config = ConfigDict(extra="forbid")

    generator: str = Field(max_length=80, description="template name@version")
    model: str = Field(max_length=200)
    brief_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    target_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    generated_at: str = Field(max_length=40)
    reviewed: bool = Field(default=False, description="set by the person who checked it")


class SuiteTask(Task):
    """A judge task with its tags (primitives default to those of the checklist)."""

    tags: TaskTags = Field(default_factory=TaskTags)
    checklist_source: ChecklistSource | None = None
    source_image: str | None = Field(
        default=None, description="image-to-image (edit) tasks: the input image, a path"
    )
    provenance: dict[str, Any] | None = Field(
        default=None, description="where a built task came from (e.g. post ids, stages)"
    )

    @model_validator(mode="after")
    def _suite_rules(self) -> SuiteTask:
        if self.category == Category.IM and not self.target_image:
            raise ValueError(
                "target_image: an IM task needs one (a path relative to the suite file)"
            )
        if self.category != Category.IM and self.target_image:
            raise ValueError(
                f"target_image: only IM tasks have one; remove it or make this task IM "
                f"(it is {self.category.value})"
            )
        if not self.tags.primitives:
            self.tags.primitives = list(dict.fromkeys(cp.primitive for cp in self.checklist))
        return self


def brief_sha256(task: Task) -> str:
    """The hash a generated checklist records: of the brief (and category)."""
    return hashlib.sha256(f"{task.category.value}\x00{task.brief}".encode()).hexdigest()


def resolve_target(task: Task, base_dir: Path) -> Path | None:
    """The target image's path (relative paths resolve against ``base_dir``)."""
    if not task.target_image:
        return None
    path = Path(task.target_image).expanduser()
    return path if path.is_absolute() else base_dir / path


def task_for_judge(t: SuiteTask, base_dir: Path, *, inline: bool = False) -> dict[str, Any]:
    """The §7 task dict for a submission: tags left out, ``target_image`` an absolute path
    (or, with ``inline``, a ``data:`` URL, for a service that takes no local paths).

    Example:
        >>> t = SuiteTask(id="im_1", category="IM", brief="Copy it.", target_image="t/a.png")
        >>> task_for_judge(t, Path("/suites"))["target_image"]
        '/suites/t/a.png'
    """
    data = t.model_dump(mode="json", include=set(Task.model_fields), exclude_none=True)
    target = resolve_target(t, base_dir)
    if target is not None:
        target = target.resolve()
        if inline:
            raw = target.read_bytes()
            with Image.open(io.BytesIO(raw)) as img:
                mime = Image.MIME.get(img.format or "PNG", "image/png")
            data["target_image"] = data_url(raw, mime)
        else:
            data["target_image"] = str(target)
    return data


def _describe(err: ErrorDetails) -> tuple[str, str]:
    loc = ".".join(str(p) for p in err["loc"])
    msg = err["msg"].removeprefix("Value error, ")
    if not loc:  # a rule over several fields names the field it is about first
        field, sep, rest = msg.partition(": ")
        loc, msg = (field, rest) if sep and field.isidentifier() else ("(task)", msg)
    if err["type"] in ("enum", "literal_error", "extra_forbidden", "missing"):
        given = json.dumps(err.get("input"), ensure_ascii=False)[:80]
        msg = f"{msg} (got {given})" if err["type"] != "missing" else msg
    return loc, msg


def _read(path: Path) -> str:
    try:
        if not path.is_file():
            raise SuiteError([f"{path}: file does not exist or is not a regular file"])
        size = path.stat().st_size
        if size > MAX_SUITE_BYTES:
            raise SuiteError([f"{path}: file is {size} bytes, over the {MAX_SUITE_BYTES} limit"])
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SuiteError([f"{path}: cannot read the file ({exc.strerror})"]) from None
    except UnicodeDecodeError:
        raise SuiteError([f"{path}: not UTF-8 text"]) from None


def _parse_line(text: str, where: str, errors: list[str]) -> dict | None:
    """The line's JSON object, or ``None`` with the problem appended to ``errors``."""
    if len(text.encode("utf-8")) > MAX_LINE_BYTES:
        errors.append(f"{where}: line is over the {MAX_LINE_BYTES} byte limit")
        return None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        errors.append(f"{where}: invalid JSON (column {exc.colno}: {exc.msg})")
        return None
    if not isinstance(obj, dict):
        errors.append(f"{where}: expected a JSON object {{...}}, got {type(obj).__name__}")
        return None
    return obj


def _validate(obj: dict, where: str, errors: list[str]) -> SuiteTask | None:
    try:
        return SuiteTask.model_validate(obj)
    except ValidationError as exc:
        errors.extend(f"{where}: {loc}: {msg}" for loc, msg in map(_describe, exc.errors()))
        return None


def _check_target(task: SuiteTask, base_dir: Path, where: str, settings: JudgeSettings) -> str:
    ref = task.target_image or ""
    if ref.startswith("data:") or "://" in ref:
        return f"{where}: target_image: give a file path (relative to the suite file), not a URL"
    try:
        load_pil(str(resolve_target(task, base_dir)), field="target_image", settings=settings)
    except InputError as exc:
        return f"{where}: {exc}"
    return ""


def load_suite(path: Path, *, check_images: bool = True) -> list[SuiteTask]:
    """Read and check a suite; raise :class:`SuiteError` listing every problem.

    With ``check_images`` (the default) every IM target is opened and decoded (size and
    pixel limits apply), so a missing or corrupt image is found before a study starts.
    """
    path = Path(path)
    text = _read(path)
    errors: list[str] = []
    tasks: list[SuiteTask] = []
    first_line: dict[str, int] = {}
    settings = JudgeSettings(image_max_bytes=MAX_TARGET_BYTES, allow_local_paths=True)
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        obj = _parse_line(line, where, errors)
        if obj is None:
            continue
        task_id = obj.get("id")
        if isinstance(task_id, str) and task_id in first_line:
            errors.append(
                f"{where}: id: task id {task_id!r} is already used on line "
                f"{first_line[task_id]}; task ids must be unique"
            )
            continue
        if isinstance(task_id, str):
            first_line[task_id] = n
        task = _validate(obj, where, errors)
        if task is None:
            continue
        if check_images and task.target_image:
            problem = _check_target(task, path.parent, where, settings)
            if problem:
                errors.append(problem)
                continue
        tasks.append(task)
    if not errors and not tasks:
        errors.append(f"{path}: the file holds no task; write one JSON task object per line")
    if errors:
        raise SuiteError(errors)
    return tasks


def write_suite(tasks: list[SuiteTask], path: Path) -> None:
    """Write tasks as JSONL (atomically: a crash leaves the old file whole)."""
    lines = (t.model_dump_json(exclude_none=True) for t in tasks)
    write_atomic(path, "".join(line + "\n" for line in lines))
