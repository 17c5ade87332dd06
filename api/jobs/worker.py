"""Workers on arq: ``judge worker`` processes, or inline workers inside ``judge serve``.

A job scores one batch item (:func:`score_item`) or runs one probe
(:func:`api.probes.job.run_probe_job`, a long job). Delivery is at-least-once, results are
exactly-once: the job skips an item that already has an outcome and writes its own with an
atomic set-if-absent (:meth:`api.jobs.store.BatchStore.record`).

Failure handling:

- provider faults (429/5xx/timeouts/malformed JSON) are retried inside the engine's gateway;
- bad input found at scoring time (an unreadable image, ...) fails the item for good, at once;
- anything else raises :class:`arq.Retry` (back-off 1, 2, 4, 8 s) and fails the item with its
  error on try :data:`ITEM_MAX_TRIES`;
- a worker killed mid-item (``kill -9``, OOM, lost machine) leaves arq's in-progress lock in
  Redis and the job in the queue; another worker runs it again once the lock expires. Plain
  arq takes that lock for ``job_timeout + 10 s`` (910 s by default). :class:`BatchWorker`
  takes it for a short lease instead (``JUDGE_WORKER_LEASE_S``, default 30 s) and the running
  job renews it every ``lease / 3``, so a killed item runs again within ``lease + poll delay``
  (~31 s by default). An event loop blocked for longer than the lease lets a second worker
  start the same item: wasted work, never a second result.

Run::

    $ REDIS_URL=redis://127.0.0.1:6379/0 JUDGE_MODEL=openai/gpt-4o judge worker
    $ arq api.jobs.worker.WorkerSettings          # the same, through arq's own CLI
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import logging.config
import sys
from collections.abc import Callable
from functools import partial
from typing import Any

import uvloop
from arq import Retry
from arq.connections import RedisSettings
from arq.constants import in_progress_key_prefix
from arq.logs import default_log_config
from arq.worker import Function, Worker, func
from pydantic import ValidationError
from redis.exceptions import RedisError

from api.core.errors import error_body
from api.core.prometheus import record_result
from api.core.settings import ServiceSettings
from api.jobs.store import JOB_FUNCTION, QUEUE_NAME, BatchStore
from api.jobs.tuning import WorkerTuning
from api.judging.factory import build_judge
from api.judging.requests import OuterOptions, check_body, named_as_sent
from api.judging.trust import load_policies
from api.state import ServiceState
from judge.engine import Judge
from judge.errors import ConfigError, InputError
from judge.io.pixel_budget import PixelBudget, pixel_ledger
from judge.modes.checked import CheckedRequest

log = logging.getLogger("judge.worker")

ITEM_MAX_TRIES = 5
"""Executions of one item (crashes included) before it is recorded as failed."""
ARQ_MAX_TRIES = ITEM_MAX_TRIES + 3
"""arq's own cap, above ours so that our code — not arq — records the final failure."""
RETRY_BASE_S = 1.0
"""Back-off before re-running an item that raised: 1, 2, 4, 8 s."""
NO_REDIS = (
    "judge worker: no Redis configured: set REDIS_URL to the Redis the "
    "service uses, e.g. REDIS_URL=redis://127.0.0.1:6379/0 judge worker (a `judge serve` "
    "without REDIS_URL runs a private Redis that outside workers cannot reach; give it one)"
)


def scoring_timeout(settings: ServiceSettings, tuning: WorkerTuning) -> float:
    """Time allowed to score one item: inside arq's job timeout, so a slow item is retried by
    us (arq would fail a timed-out job for good without calling our code).

    Example:
        >>> scoring_timeout(ServiceSettings(), WorkerTuning(job_timeout_s=100))
        80.0
    """
    margin = max(tuning.job_timeout_s * 0.2, 2.0)
    return min(settings.score_timeout_s, tuning.job_timeout_s - margin)


async def _hold_lease(redis: Any, job: str, lease_s: float) -> None:
    """Keep arq's in-progress lock of ``job`` at ``lease_s`` seconds while the item runs."""
    key = in_progress_key_prefix + job
    while True:
        try:
            await redis.pexpire(key, int(lease_s * 1000))
        except RedisError as exc:  # a Redis hiccup must not kill the item
            log.warning("could not renew the lease of job %s: %s", job, exc)
        await asyncio.sleep(lease_s / 3)


def _item_request(
    item_json: str, options_json: str, judge: Judge, settings: ServiceSettings
) -> CheckedRequest:
    """A stored item, checked once on the routes' one path (batch options < item options);
    the engine then runs it without checking it again."""
    outer = OuterOptions(json.loads(options_json))
    return check_body(json.loads(item_json), judge, settings, outer=outer)


async def score_item(ctx: dict[str, Any], batch_id: str, index: int) -> str:
    """The arq job: score item ``index`` of ``batch_id`` unless it already has an outcome.

    Holds the item's lease for as long as it runs. Returns what happened (``"result"``,
    ``"failed"``, ``"duplicate"``, ``"finished"``, ``"gone"``) for arq's log.
    """
    lease = asyncio.create_task(_hold_lease(ctx["redis"], ctx["job_id"], ctx["lease_s"]))
    try:
        return await _score_item(ctx, batch_id, index)
    finally:
        lease.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await lease


async def _score_item(ctx: dict[str, Any], batch_id: str, index: int) -> str:
    store: BatchStore = ctx["batch_store"]
    judge: Judge = ctx["judge"]
    settings: ServiceSettings = ctx["settings"]
    job_try = int(ctx.get("job_try") or 1)
    begun = await store.begin(batch_id, index)
    if begun == 0:
        return "gone"
    if begun == 1:
        return "finished"
    assert isinstance(begun, tuple)
    item_json, options_json = begun

    async def fail(code: str, message: str, field: str | None = None) -> str:
        body = error_body(code, message, field)["error"]
        won = await store.record(batch_id, index, json.dumps(body), "error")
        return "failed" if won == 1 else "duplicate"

    if job_try > ITEM_MAX_TRIES:
        return await fail(
            "gave_up",
            f"no result after {ITEM_MAX_TRIES} attempts "
            "(the worker stopped or timed out each time)",
        )
    checked: CheckedRequest | None = None
    try:
        checked = _item_request(item_json, options_json, judge, settings)
        with pixel_ledger(settings.max_request_pixels, ctx.get("pixel_budget")):
            result = await asyncio.wait_for(
                judge.arun_checked(checked), timeout=scoring_timeout(settings, ctx["tuning"])
            )
    except InputError as exc:
        as_sent = named_as_sent(exc, checked) if checked is not None else exc
        named = as_sent.under(f"items[{index}]")
        return await fail("invalid_input", str(named), named.field)
    except ConfigError as exc:
        return await fail("not_configured", str(exc))
    except ValidationError as exc:
        return await fail("invalid_options", str(exc).replace("\n", " ")[:500])
    except Exception as exc:
        reason = f"{type(exc).__name__}: {exc}"[:500] or type(exc).__name__
        if job_try >= ITEM_MAX_TRIES:
            log.error("batch %s item %d failed for good: %s", batch_id, index, reason)
            return await fail("scoring_failed", f"after {job_try} attempts: {reason}")
        log.warning("batch %s item %d try %d: %s; retrying", batch_id, index, job_try, reason)
        raise Retry(defer=RETRY_BASE_S * 2 ** (job_try - 1)) from exc
    won = await store.record(batch_id, index, result.model_dump_json(exclude_none=True), "result")
    if won == 1:  # a batch item counts in judge_submissions_total like a request
        usage = getattr(result, "usage", None)
        record_result(
            str(getattr(result, "status", "done")),
            int(getattr(usage, "llm_calls", 0) or 0),
            int(getattr(usage, "cache_hits", 0) or 0),
        )
    return {1: "result", 0: "duplicate"}.get(won, "gone")


async def startup(ctx: dict[str, Any]) -> None:
    """arq ``on_startup``: the settings, a Judge like the API's, and the batch store."""
    settings: ServiceSettings = ctx.setdefault("settings", ServiceSettings())
    redis = ctx["redis"]
    if "judge" not in ctx:  # inline workers share the API's Judge
        ctx["judge"] = build_judge(settings, redis)
    ctx["batch_store"] = BatchStore(redis, ttl_s=settings.batch_ttl_s)
    await asyncio.to_thread(load_policies, settings.trust_policies)  # options.trust of items
    total = max(settings.decode_budget_pixels, settings.max_request_pixels)
    ctx.setdefault("pixel_budget", PixelBudget(total))
    tuning: WorkerTuning = ctx.setdefault("tuning", WorkerTuning())
    ctx.setdefault("lease_s", tuning.lease_s)


async def shutdown(ctx: dict[str, Any]) -> None:
    """arq ``on_shutdown``: drop what :func:`startup` built (arq closes its Redis pool)."""
    for name in ("batch_store", "judge"):
        ctx.pop(name, None)
    transport = sys.modules.get("judge.llm.direct.transport")
    if transport is not None:  # arq never finalises its loop's async generators
        await transport.close_session()


class BatchWorker(Worker):
    """arq's :class:`~arq.worker.Worker` whose in-progress lock starts as the short lease.

    arq takes the lock for ``job_timeout + 10 s`` before the job runs; a worker killed in that
    window would hold the item for that long. Here the lock starts at ``ctx["lease_s"]`` and
    the running job renews it (:func:`score_item`), so recovery never waits for the timeout.
    """

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        lease = self.ctx.get("lease_s")
        if lease:
            self.in_progress_timeout_s = float(lease)


def worker_options(
    settings: ServiceSettings, redis_url: str, tuning: WorkerTuning | None = None
) -> dict[str, Any]:
    """Keyword arguments of :class:`arq.worker.Worker` for batch jobs (``tuning``: the
    workers' own knobs, default from the environment).

    Example::

        BatchWorker(**worker_options(ServiceSettings(), "redis://127.0.0.1:6379/0")).run()
    """
    from api.probes.budget import ProbeBudget
    from api.probes.job import PROBE_FUNCTION, PROBE_MAX_TRIES, run_probe_job

    tuning = tuning or WorkerTuning()
    budget = ProbeBudget()
    function: Function = func(
        score_item,
        name=JOB_FUNCTION,
        timeout=tuning.job_timeout_s,
        max_tries=ARQ_MAX_TRIES,
        keep_result=0,
    )
    probes: Function = func(  # long jobs: a probe renews its lease while it runs
        run_probe_job,
        name=PROBE_FUNCTION,
        timeout=budget.timeout_s,
        max_tries=PROBE_MAX_TRIES + 3,
        keep_result=0,
    )
    return {
        "functions": [function, probes],
        "queue_name": QUEUE_NAME,
        "redis_settings": RedisSettings.from_dsn(redis_url),
        "max_jobs": tuning.concurrency,
        "job_timeout": tuning.job_timeout_s,
        "keep_result": 0,
        "max_tries": ARQ_MAX_TRIES,
        "poll_delay": tuning.poll_delay_s,
        "queue_read_limit": max(tuning.queue_read_limit, tuning.concurrency * 5),
        "expires_extra_ms": settings.batch_ttl_s * 1000,
        "health_check_interval": 60,
        "on_startup": startup,
        "on_shutdown": shutdown,
        "ctx": {
            "settings": settings,
            "tuning": tuning,
            "lease_s": min(tuning.lease_s, tuning.job_timeout_s + 10),
            "probe_budget": budget,
        },
    }


def __getattr__(name: str) -> Any:
    """``WorkerSettings`` for arq's CLI (``arq api.jobs.worker.WorkerSettings``), built on
    first use from the environment so that importing this module reads no settings."""
    if name != "WorkerSettings":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    settings = ServiceSettings()
    if not settings.redis_url:
        raise RuntimeError(NO_REDIS)
    return type("WorkerSettings", (), worker_options(settings, settings.redis_url))


def run_worker() -> int:
    """Run one worker until SIGINT/SIGTERM (jobs in flight are cancelled and re-queued).

    Example::

        $ REDIS_URL=redis://127.0.0.1:6379/0 judge worker
    """
    settings = ServiceSettings()
    if not settings.redis_url:
        print(NO_REDIS, file=sys.stderr)
        return 2
    config = default_log_config(verbose=False)
    config["loggers"]["arq"]["propagate"] = False  # the CLI's root handler would log twice
    config["loggers"]["judge.worker"] = {
        "handlers": ["arq.standard"],
        "level": "INFO",
        "propagate": False,
    }
    logging.config.dictConfig(config)
    options = worker_options(settings, settings.redis_url)
    # the loop `judge serve` runs on (api.cli.SERVER_LOOP); arq takes the thread's loop
    loop = uvloop.new_event_loop()
    asyncio.set_event_loop(loop)
    log.info("batch worker: %d concurrent items, queue %s", options["max_jobs"], QUEUE_NAME)
    # SIGINT/SIGTERM cancel the running worker (arq's handler), which ends the loop
    with contextlib.suppress(asyncio.CancelledError):
        loop.run_until_complete(supervised(lambda: BatchWorker(**options), "batch worker"))
    return 0


#: how long a worker that lost Redis waits before it starts again: doubled up to the cap
RESTART_DELAY_S, RESTART_DELAY_MAX_S = 0.5, 5.0


async def supervised(make: Callable[[], Worker], name: str) -> None:
    """Run the worker ``make()`` builds; when it stops because Redis went away (a restart of
    Redis, a network cut), build a new one and run it again, after a growing pause. Items in
    flight then are re-queued by arq once their lease ends; nothing is run twice
    (:func:`score_item` writes each result once). Returns when the worker ends normally;
    cancelling the task (or a signal) stops it."""
    delay = RESTART_DELAY_S
    while True:
        worker = make()
        try:
            await worker.async_run()
            return
        except (RedisError, OSError) as exc:
            log.warning(
                "%s lost Redis (%s: %s); starting again in %.1f s",
                name,
                type(exc).__name__,
                exc,
                delay,
            )
        finally:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await worker.close()
        await asyncio.sleep(delay)
        delay = min(2 * delay, RESTART_DELAY_MAX_S)


async def start_inline_workers(state: ServiceState) -> list[asyncio.Task[None]]:
    """Start ``settings.inline_workers`` arq workers as tasks of the API's event loop.

    They share the API's Judge (and so its gateway's concurrency cap and response cache),
    probe backends, probe budget and pixel budget.

    Example (in the lifespan, once ``state.redis_url`` and ``state.judge`` exist)::

        tasks = await start_inline_workers(state)
        ...
        await stop_inline_workers(tasks)
    """
    count = state.settings.inline_workers
    tasks: list[asyncio.Task[None]] = []
    if count <= 0:
        return tasks
    for n in range(count):
        options = worker_options(state.settings, state.redis_url)
        options["ctx"]["judge"] = state.judge
        options["ctx"]["probe_backends"] = state.backends
        options["ctx"]["probe_budget"] = state.probe_budget
        if state.pixel_budget is not None:  # else the worker makes its own
            options["ctx"]["pixel_budget"] = state.pixel_budget
        tasks.append(
            asyncio.create_task(
                supervised(
                    partial(BatchWorker, **options, handle_signals=False),
                    f"inline batch worker {n}",
                ),
                name=f"batch-worker-{n}",
            )
        )
    log.info("started %d inline batch worker(s)", count)
    return tasks


async def stop_inline_workers(tasks: list[asyncio.Task[None]], timeout_s: float = 10.0) -> None:
    """Stop inline workers: items in flight are cancelled, and arq re-queues them at once."""
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=timeout_s)
