"""``/v1/batches``: submit many submissions at once, follow them, stream their results.

- ``POST /v1/batches`` → 202 ``{"id", "total", "status"}``. The body is one of

  - a JSON list of items, or ``{"items": [...], "options": {...}}`` (``application/json``);
  - JSONL, one item per line (``application/x-ndjson``, ``application/jsonl``);
  - a multipart upload: field ``file`` (JSONL or a JSON list), optional field ``options``.

  An item is what ``POST /v1/score`` takes: a Submission or ``{"submission", "options"}``;
  item options beat batch options. Every item is validated before anything is stored
  (:mod:`api.jobs.batch_body`): one bad item rejects the batch with 400 naming it as
  ``POST /v1/score`` would, the item in front (``items[3].task.category``).
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
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse

from api.core.deps import KeyDep, PollKeyDep
from api.core.errors import CONFIG_RESPONSE, error_body
from api.core.limits import charge
from api.jobs.batch_body import read_body, validate_batch
from api.jobs.store import BatchCreated, BatchInfo, BatchStore, is_batch_id, owner_tag
from api.state import StateDep

router = APIRouter(prefix="/v1/batches", tags=["batches"])

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
    responses=CONFIG_RESPONSE,
)
async def create_batch(request: Request, state: StateDep, key: KeyDep) -> JSONResponse:
    """Validate every item, store the batch and queue one job per item."""
    judge, settings, queue = state.judge, state.settings, state.queue
    if queue is None:
        raise HTTPException(503, error_body("unavailable", "the batch queue is not available"))
    items, options = await read_body(request)
    compact, batch_options = await asyncio.to_thread(
        validate_batch, items, options, judge, settings.max_batch_items, settings
    )
    # a batch of N items costs N units of the key's rate limit (one was spent on the request)
    cost = len(compact) - 1
    await charge(state.redis, key, settings.rate_limit_per_minute, cost, clock=state.clock)
    store = state.batches
    batch_id = await store.create(compact, batch_options, owner_tag(key))
    await store.enqueue(queue, batch_id, len(compact))
    body = BatchCreated(id=batch_id, total=len(compact))
    return JSONResponse(body.model_dump(), 202, headers={"Location": f"{router.prefix}/{batch_id}"})


@router.get("/{batch_id}", response_model=BatchInfo, summary="Status of a batch")
async def get_batch(batch_id: str, state: StateDep, key: PollKeyDep) -> BatchInfo:
    """Status, counts and progress (0..1) of a batch."""
    return await _info_or_404(state.batches, batch_id, key)


@router.get(
    "/{batch_id}/results",
    summary="Results of a batch (JSONL)",
    response_class=StreamingResponse,
    responses={200: {"content": {"application/x-ndjson": {}}}},
)
async def batch_results(
    batch_id: str,
    state: StateDep,
    key: PollKeyDep,
    wait: Annotated[
        bool, Query(description="wait for every item before ending the stream")
    ] = False,
) -> StreamingResponse:
    """One line per finished item, in input order: ``{"index", "result"}`` or
    ``{"index", "error"}``; unfinished items are left out unless ``wait=true``."""
    store = state.batches
    info = await _info_or_404(store, batch_id, key)
    if info.status == "deleted":
        raise HTTPException(410, error_body("gone", f"batch {batch_id} was deleted", "id"))
    return StreamingResponse(
        store.lines(batch_id, info.total, wait=wait), media_type="application/x-ndjson"
    )


@router.delete("/{batch_id}", status_code=204, summary="Delete a batch")
async def delete_batch(batch_id: str, state: StateDep, key: KeyDep) -> Response:
    """Remove the batch, its results and its pending jobs (idempotent)."""
    store = state.batches
    await _info_or_404(store, batch_id, key)
    await store.delete(batch_id, owner_tag(key), state.queue)
    return Response(status_code=204)
