"""The FastAPI application: ``create_app()`` wires settings, Redis, the engine and routers.

Example::

    app = create_app(ServiceSettings(api_keys="secret"))
    # uvicorn.run(app, host="127.0.0.1", port=8080)
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import redis.asyncio as aredis
from fastapi import APIRouter, FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic.json_schema import models_json_schema

from api.campaigns import pages as campaign_pages
from api.campaigns import routes as campaign_routes
from api.campaigns.fast import LabelFast
from api.core import errors
from api.core.clock import WALL_CLOCK, Clock
from api.core.json_body import SafeJSONResponse
from api.core.limits import BodyLimit
from api.core.observe import Observe
from api.core.redis_embedded import EmbeddedRedis
from api.core.redis_persistence import ALLOW_VARIABLE, check_async, mark, redact
from api.core.request_guard import RequestGuard
from api.core.settings import ServiceSettings
from api.core.state import ATTRIBUTE
from api.health import routes as health
from api.health.readiness import warm
from api.jobs import routes as batch_routes
from api.jobs.reconcile import reconcile_batches
from api.jobs.worker import start_inline_workers, stop_inline_workers
from api.judging import compare, score, skills
from api.judging.factory import build_judge
from api.judging.models import CompareRequest, ScoreRequest
from api.judging.trust import load_policies
from api.memories import routes as memory
from api.probes import pages as probe_pages
from api.probes import routes as probe_routes
from api.probes.runner import load_service_backends
from api.state import ServiceState, state_of
from api.studies import pages as study_pages
from api.studies import routes as study_routes
from api.ui import auth, docs_page, pages, results_pages
from eval.t2i.settings import backends_file
from judge.domain.submission import Submission
from judge.io.pixel_budget import PixelBudget
from judge.modes.compare.request import Comparison

log = logging.getLogger("judge.api")
ROUTERS: tuple[APIRouter, ...] = (
    score.router,
    compare.router,
    batch_routes.router,
    skills.router,
    memory.router,
    health.router,
    study_routes.router,
    probe_routes.router,
    pages.router,
    study_pages.router,
    auth.router,
    probe_pages.router,
    results_pages.router,
    campaign_routes.router,
    campaign_pages.router,
    docs_page.router,
)
"""Every router of the service, explicitly: a missing module is an import error."""


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    state = state_of(app)
    settings = state.settings
    embedded = None
    url = settings.redis_url
    if not url:
        embedded = EmbeddedRedis(settings.data_dir / "redis")
        url = embedded.start()
        log.info("started a private redis-server at %s (data in %s)", url, embedded.data_dir)
    state.redis_url = url
    state.redis = aredis.Redis.from_url(url)
    if embedded is None:  # an external Redis: refuse one that forgets everything on restart
        try:
            found = await check_async(state.redis, url, settings.redis_may_lose_data)
        except BaseException:
            await state.redis.aclose()  # type: ignore[attr-defined]  # types-redis 4.6 predates aclose (redis 5)
            raise
        log.info("external Redis at %s: %s", redact(url), found.summary())
        if not found.durable:
            log.warning(
                "the Redis at %s keeps nothing across a restart; accepted because %s is set",
                redact(url),
                ALLOW_VARIABLE,
            )
    state.embedded_redis = embedded
    await mark(state.redis, uuid.uuid4().hex)
    state.judge = build_judge(settings, state.redis)
    await asyncio.to_thread(load_policies, settings.trust_policies)  # a bad one stops the start
    state.pixel_budget = PixelBudget(
        max(settings.decode_budget_pixels, settings.max_request_pixels)
    )
    state.connect_stores()
    state.engine_ready = False
    state.queue = None
    background: list[asyncio.Task] = [asyncio.create_task(warm(state), name="engine-warm-up")]
    try:
        from arq import create_pool
        from arq.connections import RedisSettings

        state.queue = await create_pool(RedisSettings.from_dsn(url))
        background.append(asyncio.create_task(reconcile_batches(state), name="batch-reconciler"))
        background.append(asyncio.create_task(_requeue_probes(state), name="probe-requeuer"))
        state.inline_tasks = await start_inline_workers(state)
        yield
    finally:
        for task in background:
            task.cancel()
        await asyncio.gather(*background, return_exceptions=True)
        await stop_inline_workers(state.inline_tasks)
        if state.queue is not None:
            await state.queue.aclose()
        await state.redis.aclose()  # type: ignore[attr-defined]  # types-redis 4.6 predates aclose (redis 5)
        if embedded:
            embedded.stop()


async def _requeue_probes(state: ServiceState) -> None:
    """Queue a job for running probes whose job is missing (``/v1/probes``; idempotent)."""
    from api.probes.runner import requeue_probes

    while True:
        try:
            await requeue_probes(state.queue, state.probes)
        except Exception as exc:  # Redis down: next round
            log.warning("probe requeuer: %s", exc)
        await asyncio.sleep(state.settings.reconcile_interval_s)


def create_app(settings: ServiceSettings | None = None, *, clock: Clock = WALL_CLOCK) -> FastAPI:
    """The service, ready for uvicorn; its rate limits read ``clock`` (:mod:`api.core.clock`)."""
    app = FastAPI(
        title="t2i-judge",
        version="0.1.0",
        lifespan=lifespan,
        default_response_class=SafeJSONResponse,
        docs_url=None,  # api.ui.docs_page serves /docs without CDN scripts
        redoc_url=None,
        description="Judge-as-a-service for text-to-image work: safety gate, "
        "retrieval-calibrated subjective scores and paired checklist checks.",
    )
    settings = settings or ServiceSettings()
    # the service's one state object; T2I backends for /v1/probes are read once here (never on
    # a request's event loop), the probe budget from JUDGE_PROBE_*
    state = ServiceState(
        settings=settings, clock=clock, backends=load_service_backends(backends_file())
    )
    setattr(app.state, ATTRIBUTE, state)
    errors.install(app)
    app.add_middleware(LabelFast)  # the annotator's hot routes, inside every check below
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(RequestGuard, settings=settings)  # outermost: runs first

    app.add_middleware(Observe)  # added last: the outermost of the service's own

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
            app.openapi_schema = errors.validation_as_400(schema)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented hook
    for router in ROUTERS:
        app.include_router(router)
    return app
