"""``/healthz`` (alive), ``/readyz`` (Redis and engine ready), ``/metrics`` (Prometheus)."""

from __future__ import annotations

import contextlib
import logging
import uuid

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from api.core.deps import check_key
from api.core.prometheus import QUEUE_DEPTH, render
from api.core.redis_persistence import data_lost, mark
from api.health.models import Health
from api.state import StateDep

router = APIRouter(tags=["health"])
log = logging.getLogger("judge.api")


@router.get("/healthz", response_model=Health)
async def healthz(state: StateDep) -> JSONResponse:
    """The process is up; 503 when the private redis-server it started has exited (nothing
    but a restart of the service brings it back, so a supervisor should restart it)."""
    embedded = state.embedded_redis
    code = embedded.proc.poll() if embedded is not None and embedded.proc is not None else None
    if code is not None:
        message = f"error: the private redis-server exited (code {code}); restart judge serve"
        body = Health(status="unavailable", checks={"redis": message})
        return JSONResponse(body.model_dump(), status_code=503)
    return JSONResponse(Health(status="ok").model_dump())


@router.get("/readyz", response_model=Health)
async def readyz(state: StateDep) -> JSONResponse:
    """Ready to take work: Redis answers and the engine is warm (graph compiled, model
    gateway loaded); 503 with the failing check otherwise. A Redis that lost its data since
    start (its marker key gone) is logged as an error."""
    checks = {}
    try:
        await state.redis.ping()
        checks["redis"] = "ok"
        if not state.settings.redis_may_lose_data and await data_lost(
            state.redis
        ):  # logged once per loss: the marker is put back
            log.error(
                "Redis lost its data since the service started or the last such message "
                "(restarted without its append-only file, or flushed): campaigns, links, votes "
                "and batches written before are gone; see docs/security.md#redis"
            )
            await mark(state.redis, uuid.uuid4().hex)
    except Exception as exc:  # any connection problem means not ready
        checks["redis"] = f"error: {type(exc).__name__}"
    ready = state.engine_ready
    if not state.started:
        checks["engine"] = "starting"
    else:
        checks["engine"] = "ok" if ready is True else (ready or "warming")
    ok = all(v == "ok" for v in checks.values())
    body = Health(status="ok" if ok else "unavailable", checks=checks)
    return JSONResponse(body.model_dump(), status_code=200 if ok else 503)


@router.get("/metrics")
async def metrics(request: Request, state: StateDep) -> Response:
    """Prometheus text exposition; on a service with keys it needs one unless
    ``JUDGE_SERVE_METRICS_NEED_KEY=false``."""
    if state.settings.metrics_need_key:
        await check_key(request)
    with contextlib.suppress(Exception):  # metrics must not fail because Redis is down
        QUEUE_DEPTH.set(await state.redis.zcard("arq:queue"))
    return Response(render(), media_type="text/plain; version=0.0.4")
