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

router = APIRouter(tags=["health"])
log = logging.getLogger("judge.api")


@router.get("/healthz", response_model=Health)
async def healthz(request: Request) -> JSONResponse:
    """The process is up; 503 when the private redis-server it started has exited (nothing
    but a restart of the service brings it back, so a supervisor should restart it)."""
    embedded = getattr(request.app.state, "embedded_redis", None)
    code = embedded.proc.poll() if embedded is not None and embedded.proc is not None else None
    if code is not None:
        message = f"error: the private redis-server exited (code {code}); restart judge serve"
        body = Health(status="unavailable", checks={"redis": message})
        return JSONResponse(body.model_dump(), status_code=503)
    return JSONResponse(Health(status="ok").model_dump())


@router.get("/readyz", response_model=Health)
async def readyz(request: Request) -> JSONResponse:
    """Ready to take work: Redis answers and the engine is warm (graph compiled, model
    gateway loaded); 503 with the failing check otherwise. A Redis that lost its data since
    start (its marker key gone) is logged as an error."""
    checks = {}
    try:
        await request.app.state.redis.ping()
        checks["redis"] = "ok"
        if not getattr(request.app.state, "redis_volatile_ok", True) and await data_lost(
            request.app.state.redis
        ):  # logged once per loss: the marker is put back
            log.error(
                "Redis lost its data since the service started or the last such message "
                "(restarted without its append-only file, or flushed): campaigns, links, votes "
                "and batches written before are gone; see docs/security.md#redis"
            )
            await mark(request.app.state.redis, uuid.uuid4().hex)
    except Exception as exc:  # any connection problem means not ready
        checks["redis"] = f"error: {type(exc).__name__}"
    ready = getattr(request.app.state, "engine_ready", False)
    if getattr(request.app.state, "judge", None) is None:
        checks["engine"] = "starting"
    else:
        checks["engine"] = "ok" if ready is True else (ready or "warming")
    ok = all(v == "ok" for v in checks.values())
    body = Health(status="ok" if ok else "unavailable", checks=checks)
    return JSONResponse(body.model_dump(), status_code=200 if ok else 503)


@router.get("/metrics")
async def metrics(request: Request) -> Response:
    """Prometheus text exposition; on a service with keys it needs one unless
    ``JUDGE_SERVE_METRICS_NEED_KEY=false``."""
    if request.app.state.settings.metrics_need_key:
        await check_key(request)
    with contextlib.suppress(Exception):  # metrics must not fail because Redis is down
        QUEUE_DEPTH.set(await request.app.state.redis.zcard("arq:queue"))
    return Response(render(), media_type="text/plain; version=0.0.4")
