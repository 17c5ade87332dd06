"""Reading and checking the body of ``POST /v1/batches``.

A batch is a JSON list of items, ``{"items": [...], "options": {...}}``, JSONL, or a
multipart upload (field ``file``, optional field ``options``). Every item goes through the
routes' one validation path, and every fault is ``400 invalid_input`` naming the field as
``POST /v1/score`` names it, with the item in front (``items[3].task.category``); a batch of
more than ``JUDGE_SERVE_MAX_BATCH_ITEMS`` is ``413 too_many_items``.

Example:
    >>> decode_jsonl(b'{"a": 1}\\n{"a": 2}\\n')
    [{'a': 1}, {'a': 2}]
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import HTTPException, Request
from starlette.datastructures import UploadFile

from api.core import json_body
from api.core.errors import error_body
from api.core.settings import ServiceSettings
from api.judging.requests import OptionsFault, OuterOptions, check_body
from judge.engine import Judge
from judge.errors import InputError

JSONL_TYPES = {
    "application/x-ndjson",
    "application/jsonl",
    "application/x-jsonlines",
    "application/jsonlines",
    "application/json-lines",
    "text/jsonl",
}


def _bad(field: str, message: str, status: int = 400, code: str = "invalid_input") -> HTTPException:
    return HTTPException(status, error_body(code, f"{field}: {message}", field))


def decode_jsonl(raw: bytes) -> list[Any]:
    """Items of a JSONL text, blank lines skipped; a bad line is named ``items[i]`` (line n).

    Example:
        >>> decode_jsonl(b'{"a": 1}\\n\\n{"a": 2}\\n')
        [{'a': 1}, {'a': 2}]
    """
    text = _utf8(raw)
    items: list[Any] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        field = f"items[{len(items)}]"
        try:
            items.append(json_body.loads(line, field, prefix=field))
        except json_body.NotJSON as exc:
            raise _bad(field, f"line {lineno} is not valid JSON ({exc.reason})") from None
        except InputError as exc:
            raise InputError(exc.field, f"line {lineno}: {exc.message}") from None
    return items


def _utf8(raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _bad("(body)", "the body is not UTF-8 text") from None


def _from_json(raw: bytes) -> tuple[list[Any], Any]:
    try:
        value = json_body.loads(_utf8(raw))
    except json_body.NotJSON as exc:
        if exc.reason == "Extra data":  # several JSON values: JSONL sent as JSON
            return decode_jsonl(raw), None
        raise _bad("(body)", f"the body is not valid JSON ({exc.reason})") from None
    except InputError as exc:
        if exc.field.startswith("["):  # a member of a bare list of items
            raise InputError(f"items{exc.field}", exc.message) from None
        raise
    if isinstance(value, list):
        return value, None
    if isinstance(value, dict) and "items" in value:
        extra = sorted(set(value) - {"items", "options"})
        if extra:
            raise _bad(extra[0], "unknown field (expected 'items' and 'options')")
        if not isinstance(value["items"], list):
            raise _bad("items", "expected a list of submissions")
        return value["items"], value.get("options")
    raise _bad(
        "(body)", "expected a JSON list of submissions or {'items': [...], 'options': {...}}"
    )


async def read_body(request: Request) -> tuple[list[Any], Any]:
    """The raw items and batch options of a POST, whatever its content type."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype == "multipart/form-data":
        async with request.form(max_files=1, max_fields=4) as form:
            upload = form.get("file")
            if not isinstance(upload, UploadFile):
                raise _bad("file", "upload the items as a form file field named 'file'")
            raw = await upload.read()
            options = form.get("options")
        if isinstance(options, str):
            try:
                options = json_body.loads(options, "options") if options.strip() else None
            except json_body.NotJSON as exc:
                raise _bad("options", f"not valid JSON ({exc.reason})") from None
        if raw.lstrip().startswith(b"["):
            items, _ = _from_json(raw)
            return items, options
        return decode_jsonl(raw), options
    raw = await request.body()
    if ctype in JSONL_TYPES:
        return decode_jsonl(raw), None
    return _from_json(raw)


def validate_batch(
    items: list[Any],
    options: Any,
    judge: Judge,
    max_items: int,
    settings: ServiceSettings | None = None,
) -> tuple[list[str], dict[str, Any]]:
    """Check every item on the routes' one path (:func:`api.judging.requests.check_body`;
    an item's ``"mode"`` picks its mode); the first problem becomes a 400 naming
    ``items[i].<field>`` (with the count of other bad items), a fault of the batch options a
    400 naming ``options.<name>``. Returns the items as compact JSON and the batch options.

    Example::

        compact, options = validate_batch(items, {"retrieval": "none"}, judge, 1000)
    """
    if not items:
        raise _bad("items", "the batch has no items")
    if len(items) > max_items:
        raise _bad(
            "items",
            f"{len(items)} items is over the limit of {max_items} per batch "
            "(JUDGE_SERVE_MAX_BATCH_ITEMS); split the batch",
            413,
            "too_many_items",
        )
    if options is not None and not isinstance(options, dict):
        raise _bad("options", f"expected a JSON object, got {type(options).__name__}")
    policy = settings or ServiceSettings()
    outer = OuterOptions(options)
    first: tuple[str, str] | None = None  # the first bad item's field and message
    bad = 0
    for i, item in enumerate(items):
        try:
            check_body(item, judge, policy, outer=outer)
        except OptionsFault as exc:
            raise _bad(exc.field, exc.message) from None
        except InputError as exc:
            bad += 1
            named = exc.under(f"items[{i}]")
            first = first or (named.field, exc.message)
    if first is not None:
        more = f" (and {bad - 1} more bad item(s))" if bad > 1 else ""
        raise _bad(first[0], first[1] + more)
    compact = [json.dumps(item, separators=(",", ":"), ensure_ascii=False) for item in items]
    stored = {**outer.raw, "trust": outer.trust} if outer.trust is not None else outer.raw
    return compact, stored  # the worker reads options.trust again from the stored options
