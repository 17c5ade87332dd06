"""``/v1/batches``: submit many submissions at once, follow them, stream their results.

- ``POST /v1/batches`` → 202 ``{"id", "total", "status"}``. The body is one of

  - a JSON list of items, or ``{"items": [...], "options": {...}}`` (``application/json``);
  - JSONL, one item per line (``application/x-ndjson``, ``application/jsonl``);
  - a multipart upload: field ``file`` (JSONL or a JSON list), optional field ``options``.

  An item is what ``POST /v1/score`` takes: a Submission or ``{"submission", "options"}``;
  item options beat batch options. Every item is validated before anything is stored: one bad
  item rejects the batch with 422 naming it (``items[3].task.category``).
- ``GET /v1/batches/{id}`` → ``{"id", "status", "total", "done", "failed", "progress", ...}``;
  status is ``queued``, ``running``, ``done`` or ``deleted``.
- ``GET /v1/batches/{id}/results`` → ``application/x-ndjson``, one line per finished item in
  input order: ``{"index": 0, "result": {...}}`` or ``{"index": 3, "error": {...}}``. With
  ``?wait=true`` the stream waits and ends only after the last item.
- ``DELETE /v1/batches/{id}`` → 204; pending items are dropped from the queue.

Example::

    $ curl -X POST localhost:8080/v1/batches -H 'content-type: application/x-ndjson' \\
        --data-binary @submissions.jsonl
    {"id": "4f0c...", "total": 1000, "status": "queued"}
    $ curl localhost:8080/v1/batches/4f0c.../results?wait=true > results.jsonl
"""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.datastructures import UploadFile

from api.core import json_body
from api.core.deps import JudgeDep, KeyDep, PollKeyDep, RedisDep, SettingsDep
from api.core.errors import error_body
from api.core.limits import charge
from api.core.settings import ServiceSettings
from api.jobs.store import BatchCreated, BatchInfo, BatchStore, is_batch_id, owner_tag
from api.judging.policy import check_overrides
from api.judging.requests import ParsedRequest, check_request, parse_options, parse_request
from judge.engine import Judge
from judge.errors import InputError

router = APIRouter(prefix="/v1/batches", tags=["batches"])

JSONL_TYPES = {
    "application/x-ndjson",
    "application/jsonl",
    "application/x-jsonlines",
    "application/jsonlines",
    "application/json-lines",
    "text/jsonl",
}
_ITEM = {"type": "object", "description": "a Submission or {submission, options}"}
_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "oneOf": [
                        {"type": "array", "items": _ITEM},
                        {
                            "type": "object",
                            "properties": {
                                "items": {"type": "array", "items": _ITEM},
                                "options": {"type": "object"},
                            },
                            "required": ["items"],
                        },
                    ]
                }
            },
            "application/x-ndjson": {"schema": {"type": "string", "description": "JSONL"}},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "file": {"type": "string", "format": "binary"},
                        "options": {"type": "string", "description": "JSON object"},
                    },
                    "required": ["file"],
                }
            },
        },
    }
}


def _bad(field: str, message: str, status: int = 422, code: str = "invalid_input") -> HTTPException:
    return HTTPException(status, error_body(code, f"{field}: {message}", field))


def _loc(prefix: str, loc: tuple) -> str:
    out = prefix
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


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
    """Check every item as its route would (``POST /v1/score``, ``/v1/compare``; an item's
    ``"mode"`` picks its mode); the first problem becomes a 4xx naming ``items[i].<field>``
    (with the count of other bad items). Batch options must suit every item's mode. Returns
    the items as compact JSON and the batch options as engine overrides per mode name.
    """
    if not items:
        raise _bad("items", "the batch has no items")
    if len(items) > max_items:
        raise _bad(
            "items",
            f"{len(items)} items is over the limit of {max_items} per batch "
            "(JUDGE_MAX_BATCH_ITEMS); split the batch",
            413,
            "too_many_items",
        )
    if options is not None and not isinstance(options, dict):
        raise _bad("options", f"expected a JSON object, got {type(options).__name__}")
    raw_options = options or {}
    policy = settings or ServiceSettings()
    by_mode: dict[str, dict[str, Any]] = {}
    first: HTTPException | None = None
    bad = 0
    for i, item in enumerate(items):
        try:
            parsed = parse_request(item)
        except InputError as exc:
            field = "" if exc.field.startswith("(") else f".{exc.field}"
            problem = _bad(f"items[{i}]{field}", exc.message)
        else:
            name = parsed.mode.name
            if name not in by_mode:  # batch options: checked once per mode present
                try:
                    opts = parse_options(parsed.mode, raw_options)
                except InputError as exc:
                    raise _bad(exc.field, exc.message) from None
                by_mode[name] = opts.overrides()  # type: ignore[attr-defined]
                try:
                    check_overrides(by_mode[name], policy)
                except InputError as exc:
                    raise _bad(exc.field, exc.message) from None
                try:
                    check_request(
                        ParsedRequest(parsed.mode, parsed.request, by_mode[name], wrapped=True),
                        judge,
                    )
                except InputError as exc:
                    if exc.field.startswith("options"):  # else: reported as the item's problem
                        raise _bad(exc.field, exc.message) from None
            try:
                check_overrides(parsed.overrides, policy)
                merged = {**by_mode[name], **parsed.overrides}
                check_request(
                    ParsedRequest(parsed.mode, parsed.request, merged, parsed.wrapped), judge
                )
            except InputError as exc:
                problem = _bad(f"items[{i}].{exc.field}", exc.message)
            else:
                continue
        bad += 1
        first = first or problem
    if first is not None:
        if bad > 1:
            first.detail["error"]["message"] += f" (and {bad - 1} more bad item(s))"
        raise first
    compact = [json.dumps(item, separators=(",", ":"), ensure_ascii=False) for item in items]
    return compact, raw_options


def _store(request: Request, redis: Any) -> BatchStore:
    return BatchStore(redis, ttl_s=request.app.state.settings.batch_ttl_s)


async def _info_or_404(store: BatchStore, batch_id: str, key: str) -> BatchInfo:
    info = await store.info(batch_id, owner_tag(key)) if is_batch_id(batch_id) else None
    if info is None:
        raise HTTPException(
            404, error_body("not_found", f"no batch {batch_id[:64]!r} (or it expired)", "id")
        )
    return info


@router.post(
    "",
    status_code=202,
    response_model=BatchCreated,
    summary="Submit a batch",
    openapi_extra=_BODY,
)
async def create_batch(
    request: Request, judge: JudgeDep, settings: SettingsDep, redis: RedisDep, key: KeyDep
) -> JSONResponse:
    """Validate every item, store the batch and queue one job per item."""
    queue = getattr(request.app.state, "queue", None)
    if queue is None:
        raise HTTPException(503, error_body("unavailable", "the batch queue is not available"))
    items, options = await read_body(request)
    compact, batch_options = await asyncio.to_thread(
        validate_batch, items, options, judge, settings.max_batch_items, settings
    )
    # a batch of N items costs N units of the key's rate limit (one was spent on the request)
    await charge(redis, key, settings.rate_limit_per_minute, cost=len(compact) - 1)
    store = _store(request, redis)
    batch_id = await store.create(compact, batch_options, owner_tag(key))
    await store.enqueue(queue, batch_id, len(compact))
    body = BatchCreated(id=batch_id, total=len(compact))
    return JSONResponse(body.model_dump(), 202, headers={"Location": f"{router.prefix}/{batch_id}"})


@router.get("/{batch_id}", response_model=BatchInfo, summary="Status of a batch")
async def get_batch(batch_id: str, request: Request, redis: RedisDep, key: PollKeyDep) -> BatchInfo:
    """Status, counts and progress (0..1) of a batch."""
    return await _info_or_404(_store(request, redis), batch_id, key)


@router.get(
    "/{batch_id}/results",
    summary="Results of a batch (JSONL)",
    response_class=StreamingResponse,
    responses={200: {"content": {"application/x-ndjson": {}}}},
)
async def batch_results(
    batch_id: str,
    request: Request,
    redis: RedisDep,
    key: PollKeyDep,
    wait: Annotated[
        bool, Query(description="wait for every item before ending the stream")
    ] = False,
) -> StreamingResponse:
    """One line per finished item, in input order: ``{"index", "result"}`` or
    ``{"index", "error"}``; unfinished items are left out unless ``wait=true``."""
    store = _store(request, redis)
    info = await _info_or_404(store, batch_id, key)
    if info.status == "deleted":
        raise HTTPException(410, error_body("gone", f"batch {batch_id} was deleted", "id"))
    return StreamingResponse(
        store.lines(batch_id, info.total, wait=wait), media_type="application/x-ndjson"
    )


@router.delete("/{batch_id}", status_code=204, summary="Delete a batch")
async def delete_batch(batch_id: str, request: Request, redis: RedisDep, key: KeyDep) -> Response:
    """Remove the batch, its results and its pending jobs (idempotent)."""
    store = _store(request, redis)
    await _info_or_404(store, batch_id, key)
    await store.delete(batch_id, owner_tag(key), getattr(request.app.state, "queue", None))
    return Response(status_code=204)
