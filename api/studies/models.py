"""Request and answer shapes of the studies routes, and the validation of a study's tasks.

Tasks arrive as suite JSONL lines (strings) or objects; each is checked as a suite task
(``eval.studies.suite.SuiteTask``: the §7 task plus ``tags``). Problems raise
:class:`judge.errors.InputError` naming ``tasks[i].field``.

Example:
    >>> body = StudyCreate.model_validate({"id": "demo", "name": "Demo", "participants": 2,
    ...     "tasks": ['{"id": "oe_1", "category": "OE", "brief": "A quiet harbour."}']})
    >>> [t["id"] for t in validated_tasks(body.tasks)]
    ['oe_1']
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from eval.studies.suite import SuiteTask
from judge.errors import InputError

STUDY_ID = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
MAX_TASKS = 2_000
MAX_PARTICIPANTS = 1_000
DEFAULT_MAX_PROMPT_CHARS = 4_000
LIMIT_PROMPT_CHARS = 20_000
# What a participant writes, per study kind, as error messages name it: (noun, with its article)
ANSWER_WORDS: dict[str, tuple[str, str]] = {
    "prompt": ("prompt", "a prompt"),
    "edit": ("edit instruction", "an edit instruction"),
}


class StudyCreate(BaseModel):
    """``POST /v1/studies``: a study, its tasks, and who may take part.

    ``participants`` is how many codes to issue, or the codes themselves. IM tasks need a
    target image: either ``target_image`` is a ``data:`` URL, or it names an entry of
    ``targets`` (the suite's relative path → a ``data:`` URL of the file).

    ``kind`` is ``prompt`` (participants write text-to-image prompts) or ``edit``
    (participants write edit instructions: each task's ``brief`` is the request, its
    ``target_image`` the picture to edit, and the page asks for an instruction).
    """

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=STUDY_ID)
    name: str = Field(min_length=1, max_length=200)
    tasks: list[str | dict[str, Any]] = Field(min_length=1, max_length=MAX_TASKS)
    participants: int | list[str] = Field(
        description="number of codes to issue (1–1000), or the codes to accept"
    )
    targets: dict[str, str] = Field(default_factory=dict, max_length=MAX_TASKS)
    max_prompt_chars: int = Field(default=DEFAULT_MAX_PROMPT_CHARS, ge=1, le=LIMIT_PROMPT_CHARS)
    instructions: str = Field(default="", max_length=5_000)
    kind: Literal["prompt", "edit"] = "prompt"


def edit_task_problems(tasks: list[dict[str, Any]]) -> None:
    """Every task of an edit study must show the picture to edit (an IM task's target).

    Example:
        >>> edit_task_problems([{"id": "t", "category": "OE", "brief": "b"}])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        judge.errors.InputError: tasks[0].target_image: an edit study's task needs the picture ...
    """
    for i, task in enumerate(tasks):
        if task.get("category") != "IM" or not task.get("target_image"):
            raise InputError(f"tasks[{i}].target_image", "an edit study's task needs the "
                             "picture to edit (category IM with target_image)")  # fmt: skip


class StudyCreated(BaseModel):
    """The answer to a registration: the study's page and every participant code."""

    id: str
    name: str
    n_tasks: int
    participants: list[str]
    page: str


class ParticipantState(BaseModel):
    """One participant's progress."""

    participant: str
    answered: int


class StudyInfo(BaseModel):
    """``GET /v1/studies/{id}`` (admin): the study and everyone's progress."""

    id: str
    name: str
    kind: str = "prompt"
    n_tasks: int
    task_ids: list[str]
    max_prompt_chars: int
    created_at: str
    participants: list[ParticipantState]


class PromptSubmit(BaseModel):
    """``POST /v1/studies/{id}/prompts``: a participant's prompt for one task."""

    model_config = ConfigDict(extra="forbid")

    participant: str = Field(max_length=64)
    task_id: str = Field(min_length=1, max_length=128)
    prompt: str


class PromptStored(BaseModel):
    """What was kept: the prompt as stored, when, and how many versions exist."""

    task_id: str
    participant: str
    submitted_at: str
    revision: int
    answered: int
    n_tasks: int


_LOC = re.compile(r"\.(\d+)(?=\.|$)")


def _where(index: int, loc: tuple) -> str:
    path = ".".join(str(p) for p in loc)
    return f"tasks[{index}]" + (("." + _LOC.sub(r"[\1]", path)) if path else "")


def validated_task(raw: str | dict[str, Any], index: int) -> dict[str, Any]:
    """One task as a plain dict (``tags`` kept), or an :class:`InputError` naming the field."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InputError(f"tasks[{index}]", f"not a JSON object ({exc.msg})") from None
        except RecursionError:
            raise InputError(f"tasks[{index}]", "nested too deeply") from None
    if not isinstance(raw, dict):
        raise InputError(f"tasks[{index}]", "expected a JSON object (one suite line)")
    if raw.get("category") == "IM" and not raw.get("target_image"):
        raise InputError(f"tasks[{index}].target_image", "an IM task needs a target image")
    try:
        task = SuiteTask.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        msg = "unknown field" if err["type"] == "extra_forbidden" else err["msg"]
        raise InputError(_where(index, tuple(err["loc"])), msg) from None
    out = task.model_dump(mode="json")
    check_text(json.dumps(out, ensure_ascii=False), f"tasks[{index}]")
    return out


def check_text(value: str, field: str) -> str:
    """``value`` when it is valid Unicode (no lone surrogates, no NUL); else InputError.

    Example:
        >>> check_text("ok ✓", "name")
        'ok ✓'
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(field, "not valid Unicode text (a lone surrogate)") from None
    if "\x00" in value:
        raise InputError(field, "contains a NUL character")
    return value


def validated_tasks(raws: list[str | dict[str, Any]]) -> list[dict[str, Any]]:
    """Every task checked, ids unique."""
    tasks = [validated_task(raw, i) for i, raw in enumerate(raws)]
    seen: set[str] = set()
    for i, task in enumerate(tasks):
        if task["id"] in seen:
            raise InputError(f"tasks[{i}].id", f"task id {task['id']!r} appears more than once")
        seen.add(task["id"])
    return tasks


def clean_prompt(text: object, max_chars: int, field: str = "prompt", kind: str = "prompt") -> str:
    """A participant's prompt as it will be stored: line ends as ``\\n``, otherwise untouched.

    ``kind`` is the study's kind: errors name the text as :data:`ANSWER_WORDS` does
    (``prompt``, or ``edit instruction`` on an edit study).

    Example:
        >>> clean_prompt("two cats\\r\\non a mat ", 100)
        'two cats\\non a mat '
        >>> clean_prompt("x" * 11, 10)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        judge.errors.InputError: prompt: the prompt is 11 characters; the limit is 10 (...)
        >>> clean_prompt(" ", 10, kind="edit")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        judge.errors.InputError: prompt: the edit instruction is empty; write an edit ...
    """
    noun, a_noun = ANSWER_WORDS.get(kind, ANSWER_WORDS["prompt"])
    if not isinstance(text, str):
        raise InputError(field, "expected text")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise InputError(field, f"the {noun} is empty; write {a_noun} before submitting")
    if len(text) > max_chars:
        raise InputError(
            field,
            f"the {noun} is {len(text)} characters; the limit is {max_chars} "
            "(shorten it and submit again)",
        )
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(field, f"the {noun} is not valid Unicode text") from None
    if "\x00" in text:
        raise InputError(field, f"the {noun} contains a NUL character")
    return text
