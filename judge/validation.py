"""Turn untrusted JSON into a :class:`Submission`, with errors that name the field.

Example:
    >>> try:
    ...     parse_submission({"task": {"id": "t", "category": "XX", "brief": ""}, "prompt": "p"})
    ... except InputError as e:
    ...     print(e.field)
    task.category
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar, get_args

from pydantic import BaseModel, ValidationError

from judge.domain.submission import Submission
from judge.errors import InputError
from registry import suggest

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
            near = suggest(name, missing.get(parent, []))
            if near:
                return err, near[0]
    return errors[0], None


MAX_NAMED = 8
"""Problems named in one error at most (the rest are counted)."""


def fields_at(model: type[BaseModel], parent: Sequence[Any]) -> list[str]:
    """The field names of the object at ``parent`` (a validation error's location without its
    last part) inside ``model``: the names a misspelt key there may have meant.

    Example:
        >>> from judge.domain.submission import Submission
        >>> "category" in fields_at(Submission, ("task",))
        True
    """
    current: Any = model
    for part in parent:
        if isinstance(part, int):
            continue
        field = current.model_fields.get(str(part)) if _is_model(current) else None
        current = _model_in(field.annotation) if field is not None else None
        if current is None:
            return []
    return list(current.model_fields) if _is_model(current) else []


def _is_model(x: Any) -> bool:
    return isinstance(x, type) and issubclass(x, BaseModel)


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model an annotation holds (``X``, ``X | None``, ``list[X]``, ``Annotated[X, ...]``)."""
    if _is_model(annotation):
        return annotation
    for arg in get_args(annotation):
        if (found := _model_in(arg)) is not None:
            return found
    return None


def problem_list(
    errors: Sequence[Any],
    model: type[BaseModel] | None = None,
    loc: Callable[[tuple], str] = _loc,
    unknown: str = "unknown field",
) -> list[tuple[str, str]]:
    """Every validation error as ``(field, message)``, the likeliest first (see
    :func:`first_problem`); an unknown key gets "did you mean" with the nearest field of its
    object (a missing one, else any of ``model``'s fields there).

    Example:
        >>> from judge.modes.score.options import ScoreOptions
        >>> from pydantic import ValidationError
        >>> try:
        ...     ScoreOptions.model_validate({"skils": []})
        ... except ValidationError as exc:
        ...     problem_list(exc.errors(), ScoreOptions, unknown="unknown option")
        [('skils', "unknown option; did you mean 'skills'?")]
    """
    if not errors:
        return []
    first, near_first = first_problem(errors)
    ordered = [first, *(e for e in errors if e is not first)]
    out = []
    for err in ordered:
        where = tuple(err.get("loc", ()))
        msg = err.get("msg", "invalid value")
        if err.get("type") == "extra_forbidden":
            near = near_first if err is first else None
            if near is None and model is not None and where:
                names = fields_at(model, where[:-1])
                found = suggest(where[-1], names)
                near = found[0] if found else None
                if near is None and names:
                    msg = f"{unknown} (known: {', '.join(sorted(names))})"
                    out.append((loc(where), msg))
                    continue
            msg = (
                f"{unknown}; did you mean {near!r}?"
                if near
                else (f"{unknown} (check the spelling against the request schema)")
            )
        elif err.get("type") == "missing":
            msg = "this field is required"
        out.append((loc(where), msg))
    return out


def as_input_error(problems: list[tuple[str, str]]) -> InputError:
    """One :class:`InputError` naming every problem (the first :data:`MAX_NAMED`)."""
    (field, msg), rest = problems[0], problems[1:MAX_NAMED]
    if len(problems) > MAX_NAMED:
        rest.append(("(and more)", f"{len(problems) - MAX_NAMED} more problem(s)"))
    return InputError(field, msg, rest)


def validate_model(model: type[M], data: Any, *, root: str = "(submission)") -> M:
    """Validate decoded JSON against ``model``; every problem is named in one
    :class:`InputError`, the likeliest first (``root`` names the whole object).

    Example:
        >>> from judge.domain.task import Task
        >>> try:
        ...     validate_model(Task, {"id": "t"}, root="task")
        ... except InputError as e:
        ...     print(e)
        category: this field is required; brief: this field is required
    """
    if not isinstance(data, dict):
        raise InputError(root, f"expected a JSON object, got {type(data).__name__}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        found = problem_list(exc.errors(), model, loc=lambda where: _loc(where, root))
        raise as_input_error(found) from None


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
