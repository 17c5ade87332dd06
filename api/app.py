"""The FastAPI application: ``create_app()`` wires settings, Redis, the engine and routers.

Example::

    app = create_app(ServiceSettings(api_keys="secret"))
    # uvicorn.run(app, host="127.0.0.1", port=8080)
"""

from __future__ import annotations

import importlib
import json
import logging
import re
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import redis.asyncio as aredis
from fastapi import FastAPI, Request, Response
from fastapi.openapi.utils import get_openapi
from pydantic.json_schema import models_json_schema

from api import errors
from api.cache import RedisResponseCache
from api.limits import BodyLimit
from api.metrics import LATENCY, REQUESTS
from api.models import CompareRequest, ScoreRequest
from api.redis_embedded import EmbeddedRedis
from api.settings import ServiceSettings
from api.worker import start_inline_workers, stop_inline_workers
from judge.config import JudgeSettings
from judge.domain.submission import Submission
from judge.engine import Judge
from judge.modes.compare.request import Comparison

log = logging.getLogger("judge.api")
_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
ROUTERS = [
    "api.routers.score",
    "api.routers.compare",
    "api.routers.batches",
    "api.routers.skills",
    "api.routers.memory",
    "api.routers.health",
]


def engine_settings(settings: ServiceSettings) -> JudgeSettings:
    """The engine's settings under the service's input limits (no server-side paths)."""
    return JudgeSettings().merged(
        allow_local_paths=False,
        allow_remote_images=settings.allow_remote_images,
        image_max_bytes=settings.max_image_bytes,
        image_max_pixels=settings.max_image_pixels,
    )


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    settings: ServiceSettings = app.state.settings
    embedded = None
    url = settings.redis_url
    if not url:
        embedded = EmbeddedRedis(settings.data_dir / "redis")
        url = embedded.start()
        log.info("started a private redis-server at %s (data in %s)", url, embedded.data_dir)
    app.state.redis_url = url
    app.state.redis = aredis.Redis.from_url(url)
    cache = RedisResponseCache(app.state.redis, ttl_s=settings.cache_ttl_s)
    app.state.judge = Judge(engine_settings(settings), cache=cache)
    app.state.queue = None
    try:
        from arq import create_pool
        from arq.connections import RedisSettings

        app.state.queue = await create_pool(RedisSettings.from_dsn(url))
        app.state.inline_tasks = await start_inline_workers(app)
        yield
    finally:
        await stop_inline_workers(getattr(app.state, "inline_tasks", []))
        if app.state.queue is not None:
            await app.state.queue.aclose()
        await app.state.redis.aclose()
        if embedded:
            embedded.stop()


def create_app(settings: ServiceSettings | None = None) -> FastAPI:
    """The service, ready for uvicorn."""
    app = FastAPI(
        title="t2i-judge",
        version="0.1.0",
        lifespan=lifespan,
        description="Judge-as-a-service for text-to-image work: safety gate, "
        "retrieval-calibrated subjective scores and paired checklist checks.",
    )
    app.state.settings = settings or ServiceSettings()
    app.state.inline_workers = app.state.settings.inline_workers
    errors.install(app)
    app.add_middleware(BodyLimit, max_bytes=app.state.settings.max_body_bytes)

    @app.middleware("http")
    async def observe(request: Request, call_next) -> Response:
        rid = request.headers.get("x-request-id") or uuid.uuid4().hex[:16]
        request.state.request_id = rid
        start = time.perf_counter()
        response = await call_next(request)
        route = getattr(request.scope.get("route"), "path", "unmatched")
        elapsed = time.perf_counter() - start
        REQUESTS.labels(route=route, method=request.method, status=response.status_code).inc()
        LATENCY.labels(route=route).observe(elapsed)
        response.headers["x-request-id"] = rid
        log.info(
            json.dumps(
                {
                    "event": "request",
                    "request_id": rid,
                    "method": request.method,
                    "route": route,
                    "status": response.status_code,
                    "seconds": round(elapsed, 4),
                }
            )
        )
        return response

    def openapi() -> dict:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title, version=app.version, description=app.description, routes=app.routes
            )
            _, defs = models_json_schema(
                [
                    (Submission, "validation"),
                    (ScoreRequest, "validation"),
                    (Comparison, "validation"),
                    (CompareRequest, "validation"),
                ],
                ref_template="#/components/schemas/{model}",
            )
            schema.setdefault("components", {}).setdefault("schemas", {}).update(
                defs.get("$defs", {})
            )
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    for name in ROUTERS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        app.include_router(module.router)
    return app
