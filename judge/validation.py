"""Turn untrusted JSON into a :class:`Submission`, with errors that name the field.

Example:
    >>> try:
    ...     parse_submission({"task": {"id": "t", "category": "XX", "brief": ""}, "prompt": "p"})
    ... except InputError as e:
    ...     print(e.field)
    task.category
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from judge.domain.submission import Submission
from judge.errors import InputError

MAX_SUBMISSION_FILE_BYTES = 64 * 1024 * 1024


def _loc(loc: tuple, root: str = "(submission)") -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or root


M = TypeVar("M", bound=BaseModel)


def first_problem(errors: Sequence[Any]) -> tuple[Any, str | None]:
    """The validation error to report first, and the field it probably misspells: an unknown
    field that looks like a missing one of the same object (``promt`` for ``prompt``) says
    more than "prompt is required"; otherwise the first error, and None.

    Example:
        >>> errors = [{"type": "missing", "loc": ("prompt",), "msg": "Field required"},
        ...           {"type": "extra_forbidden", "loc": ("promt",), "msg": "Extra inputs"}]
        >>> err, near = first_problem(errors)
        >>> err["loc"], near
        (('promt',), 'prompt')
    """
    missing: dict[tuple[Any, ...], list[str]] = {}
    for err in errors:
        if err["type"] == "missing" and err["loc"]:
            missing.setdefault(tuple(err["loc"][:-1]), []).append(str(err["loc"][-1]))
    for err in errors:
        if err["type"] == "extra_forbidden" and err["loc"]:
            parent, name = tuple(err["loc"][:-1]), str(err["loc"][-1])
            near = difflib.get_close_matches(name, missing.get(parent, []), n=1)
            if near:
                return err, near[0]
    return errors[0], None


def validate_model(model: type[M], data: Any, *, root: str = "(submission)") -> M:
    """Validate decoded JSON against ``model``; the first problem is raised as
    :class:`InputError` naming its field (``root`` names the whole object).

    Example:
        >>> from judge.domain.task import Task
        >>> try:
        ...     validate_model(Task, {"id": "t"}, root="task")
        ... except InputError as e:
        ...     print(e)
        category: this field is required (and 1 more problem(s))
    """
    if not isinstance(data, dict):
        raise InputError(root, f"expected a JSON object, got {type(data).__name__}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err, near = first_problem(exc.errors())
        msg = err["msg"]
        if near:
            msg = f"unknown field; did you mean {near!r}?"
        elif err["type"] == "missing":
            msg = "this field is required"
        elif err["type"] == "extra_forbidden":
            msg = "unknown field (check the spelling against the request schema)"
        more = f" (and {exc.error_count() - 1} more problem(s))" if exc.error_count() > 1 else ""
        raise InputError(_loc(tuple(err["loc"]), root), msg + more) from None


def parse_submission(data: Any) -> Submission:
    """Validate a decoded JSON value; the first problem is raised as :class:`InputError`."""
    return validate_model(Submission, data)


def read_text_file(path: Path, max_bytes: int = MAX_SUBMISSION_FILE_BYTES) -> str:
    """A UTF-8 text file's content; a missing, oversized, unreadable or non-UTF-8 file is an
    :class:`InputError` naming it."""
    try:
        if path.is_dir():
            raise InputError(str(path), "is a folder: give the JSON file inside it "
                             "(e.g. examples/co_106/submission.json)")  # fmt: skip
        if not path.is_file():
            raise InputError(str(path), "file does not exist or is not a regular file")
        if path.stat().st_size > max_bytes:
            raise InputError(str(path), f"file is larger than {max_bytes} bytes")
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(str(path)[:200], f"cannot read the file ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise InputError(str(path), "file is not UTF-8 text") from None


def load_request_file(path: Path) -> Any:
    """Read a request JSON file (any mode); errors name the file and what to do."""
    text = read_text_file(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            str(path), f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None


def load_submission_file(path: Path) -> Submission:
    """Read and validate a submission JSON file."""
    return parse_submission(load_request_file(path))
