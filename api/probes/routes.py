"""``/v1/probes``: adaptive probing of a T2I backend configured on the server.

- ``POST /v1/probes`` → 202 ``{"id", "status": "running", "plan"}``. JSON fields as
  ``judge probe run``'s options: ``topic``, ``backend`` (an id of the server's
  ``JUDGE_BACKENDS`` file), ``depth``, ``topics``, ``inputs``, ``images``, ``threshold``, plus
  ``bug_threshold``, ``strategy``, ``baseline``, ``rounds``, ``localise``,
  ``max_split_tests``, ``pass_share``, ``seed``, ``criterion``, within the service's bounds
  (:mod:`api.probes.budget`). Endpoints, keys and models are never accepted from clients (400
  ``forbidden_field``): the writer and the judge are the server's. A probe whose worst-case
  plan is over the budget is refused (422 ``over_budget``) before anything starts; it costs
  its planned nodes in rate-limit units; a key with ``JUDGE_PROBE_MAX_RUNNING_PER_KEY``
  probes running gets 429 ``too_many_probes``. The probe runs as a job on the worker pool.
- ``GET /v1/probes/{id}`` → ``{"id", "status": "running|done|failed|stopped|cancelled",
  "error", "params", "budget": {"plan", "limits", "spent"}, "tree": {"root", "metrics",
  ...}}``; human overrides applied, metrics recomputed.
- ``DELETE /v1/probes/{id}`` → 200 ``{"id", "status", "cancelled"}``: stops a running probe
  (its worker stops within about a second) and keeps what it measured.
- ``POST /v1/probes/{id}/overrides`` → ``{"node": "n0.1", "test": 0, "image": 2,
  "verdict": false, "who": "ana", "note": "..."}`` (or ``{"overrides": [...]}``); answers the
  tree's metrics with the judge–human agreement.
- ``GET /v1/probes/{id}/images/{name}`` → the PNG of one rendered image (a test's image entry
  ``images/<name>`` read as a path under ``/v1/probes/{id}/``).
- ``GET /v1/probes`` → ``{"probes": [{"id", "status", "topic", "backend", "created_at"}]}``,
  the caller's probes, newest first (browsing needs no model).

Example::

    $ curl -X POST localhost:8080/v1/probes -H 'content-type: application/json' \\
        -d '{"topic": "counting", "backend": "flux"}'
    {"id": "9b1e...", "status": "running", "plan": {"nodes": 13, ...}}
    $ curl -X DELETE localhost:8080/v1/probes/9b1e...
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from api.core import json_body
from api.core.deps import KeyDep, PollKeyDep
from api.core.errors import ERROR_RESPONSES, LIMIT_RESPONSE, error_body
from api.jobs.store import owner_tag
from api.probes.admission import admit
from api.probes.record import ProbeRecord
from api.probes.runner import enqueue_probe
from api.probes.store import ProbeStore, is_probe_id
from api.state import StateDep
from eval.probing.overrides import OverrideError, make_override, target_key
from eval.probing.params import ProbeParams
from eval.probing.stored import export_json

router = APIRouter(prefix="/v1/probes", tags=["probes"], responses=ERROR_RESPONSES)
FORBIDDEN = {
    "api_base",
    "api_key",
    "api_key_env",
    "backend_api_base",
    "backend_api_key_env",
    "endpoint",
    "url",
    "base_url",
    "key",
    "headers",
    "model",
    "writer_model",
    "judge_model",
}
SERVER_SIDE = {"model", "writer_model", "judge_model"}
MAX_OVERRIDES = 500


class OverrideIn(BaseModel):
    """One person's verdict on one image."""

    model_config = ConfigDict(extra="forbid")

    node: str = Field(min_length=1, max_length=64)
    test: int = Field(ge=0)
    image: int = Field(ge=0)
    verdict: bool
    who: str | None = Field(default=None, min_length=1, max_length=128)
    note: str | None = Field(default=None, max_length=2000)


class ProbeStatus(BaseModel):
    """The answer to ``GET /v1/probes/{id}``."""

    id: str
    status: Literal["running", "done", "failed", "stopped", "cancelled"]
    error: str | None = None
    params: dict[str, Any]
    budget: dict[str, Any] | None = None
    created_at: float | None = None
    finished_at: float | None = None
    tree: dict[str, Any] | None = None


def _bad(status: int, code: str, message: str, field: str | None = None) -> HTTPException:
    return HTTPException(status, error_body(code, message, field))


@router.post("", status_code=202, responses=LIMIT_RESPONSE)
async def create_probe(request: Request, key: KeyDep, state: StateDep) -> JSONResponse:
    """Start a probe of a server-configured backend."""
    body = json_body.loads(await request.body() or b"null")
    if not isinstance(body, dict):
        raise _bad(400, "invalid_input", "(body): send a JSON object of probe options", "(body)")
    sent = sorted(k for k in body if k.lower() in FORBIDDEN)
    if sent:
        field = sent[0]
        what = (
            "the writer and judge models are the server's (JUDGE_PROBE_WRITER_MODEL, "
            "JUDGE_MODEL); leave 'model' out"
            if field.lower() in SERVER_SIDE
            else "clients never send endpoints or keys; name a backend the server configures "
            "(JUDGE_BACKENDS) in 'backend'"
        )
        raise _bad(400, "forbidden_field", f"{field}: {what}", field)
    try:
        params = ProbeParams.model_validate(body)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "(body)"
        msg = "unknown field" if err["type"] == "extra_forbidden" else err["msg"]
        raise _bad(400, "invalid_input", f"{field}: {msg}", field) from None
    queue = state.queue
    if queue is None:
        raise _bad(503, "unavailable", "the job queue is not available; try again shortly")
    admitted = await admit(state, params, key)
    probe_id = admitted.probe_id
    await enqueue_probe(queue, probe_id, state.settings.batch_ttl_s)
    body = {"id": probe_id, "status": "running", "plan": admitted.plan}
    return JSONResponse(body, 202, headers={"Location": f"{router.prefix}/{probe_id}"})


@router.get("")
async def list_probes(key: PollKeyDep, state: StateDep) -> dict[str, Any]:
    """The caller's probes, newest first."""
    return {"probes": await state.probes.listing(owner_tag(key))}


async def _load(store: ProbeStore, probe_id: str, key: str) -> ProbeRecord:
    meta = await store.meta(probe_id, owner_tag(key)) if is_probe_id(probe_id) else None
    if meta is None:
        raise _bad(404, "not_found", f"no probe {probe_id!r} (unknown, expired or not yours)")
    return meta


#: the options' defaults, for probes stored before an option existed
_DEFAULTS = {k: f.default for k, f in ProbeParams.model_fields.items() if not f.is_required()}


async def _status(store: ProbeStore, probe_id: str, meta: ProbeRecord) -> ProbeStatus:
    params = {**_DEFAULTS, **meta.params}
    snapshot = await store.tree(probe_id)
    tree = None
    if snapshot is not None:
        tree = export_json(snapshot, await store.overrides(probe_id), params)
    budget = None
    if "plan" in meta.model_fields_set:  # stored "{}" too (a budget of nothing is shown)
        budget = {**meta.plan, "spent": meta.spent}
    return ProbeStatus(
        id=probe_id,
        status=meta.status,
        error=meta.error,
        params=params,
        budget=budget,
        created_at=meta.created_at,
        finished_at=meta.finished_at,
        tree=tree,
    )


@router.get("/{probe_id}", response_model=ProbeStatus)
async def get_probe(probe_id: str, key: PollKeyDep, state: StateDep) -> ProbeStatus:
    """Status and tree of one probe."""
    store = state.probes
    meta = await _load(store, probe_id, key)
    return await _status(store, probe_id, meta)


@router.delete("/{probe_id}")
async def cancel_probe(probe_id: str, key: KeyDep, state: StateDep) -> dict[str, Any]:
    """Stop a running probe; what it measured stays (``GET`` shows it as ``cancelled``)."""
    store = state.probes
    await _load(store, probe_id, key)
    cancelled = await store.finish(probe_id, "cancelled", "cancelled by its owner")
    meta = await _load(store, probe_id, key)
    return {"id": probe_id, "status": meta.status, "cancelled": cancelled}


@router.post("/{probe_id}/overrides")
async def add_overrides(
    probe_id: str, request: Request, key: KeyDep, state: StateDep
) -> dict[str, Any]:
    """Record people's verdicts; later inputs and reflections of a running probe use them."""
    store = state.probes
    meta = await _load(store, probe_id, key)
    body = json_body.loads(await request.body() or b"null")
    raw = body.get("overrides") if isinstance(body, dict) and "overrides" in body else [body]
    if not isinstance(raw, list) or not raw or len(raw) > MAX_OVERRIDES:
        raise _bad(
            400,
            "invalid_input",
            f"(body): send one override or 'overrides': a list of 1-{MAX_OVERRIDES}",
            "overrides",
        )
    snapshot = await store.tree(probe_id)
    if snapshot is None:
        raise _bad(409, "not_ready", "the probe has no labelled images yet; try again shortly")
    from eval.probing.tree import ProbeNode

    root = ProbeNode.from_json(snapshot["root"])
    staged = []
    for i, item in enumerate(raw):
        try:
            ov = OverrideIn.model_validate(item)
            address = target_key(root, ov.node, ov.test, ov.image)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = f"overrides[{i}]." + ".".join(str(p) for p in err["loc"])
            raise _bad(400, "invalid_input", f"{field}: {err['msg']}", field) from None
        except OverrideError as exc:
            raise _bad(404, "not_found", f"overrides[{i}]: {exc}", f"overrides[{i}]") from None
        staged.append((address, make_override(ov.verdict, ov.who or owner_tag(key), note=ov.note)))
    for address, override in staged:
        await store.put_override(probe_id, address, override)
    status = await _status(store, probe_id, meta)
    return {
        "id": probe_id,
        "recorded": len(staged),
        "metrics": status.tree["metrics"] if status.tree else None,
    }


@router.get("/{probe_id}/images/{name}")
async def probe_image(probe_id: str, name: str, key: PollKeyDep, state: StateDep) -> Response:
    """One rendered image of a probe (PNG)."""
    store = state.probes
    await _load(store, probe_id, key)
    png = await store.image(probe_id, f"images/{name}")
    if png is None:
        raise _bad(404, "not_found", f"no image {name!r} in probe {probe_id}")
    return Response(png, media_type="image/png")
