"""Probes as jobs on the worker pool: ``POST /v1/probes`` queues one arq job (function
:data:`api.probes.ids.PROBE_FUNCTION`, job id ``probe:{id}``) that any ``judge worker`` — or
the inline worker of a single ``judge serve`` — runs (:class:`ProbeJob`).

- **Crash-safe.** Every step is journaled in Redis (:class:`api.probes.store.RedisJournal`);
  a worker killed mid-probe leaves arq's in-progress lock to expire (the job renews it every
  second while it runs), and another worker re-runs the job, repeating no finished step.
- **Cancellable.** The job watches the probe's status every :data:`WATCH_S`; once
  ``DELETE /v1/probes/{id}`` has marked it ``cancelled`` it stops the run and saves the tree
  as measured so far.
- **Budgeted.** Every request is charged to the probe's budget first
  (:mod:`api.probes.meter`); the first that would not fit stops the probe as ``stopped``.
- **Server-side models.** The writer is ``JUDGE_PROBE_WRITER_MODEL`` or the judge's model,
  whatever the stored options say.

Anything that goes wrong ends the probe as ``failed`` with the reason; a worker shutting down
(SIGTERM) leaves it running for another worker.

Example (the API side)::

    await enqueue_probe(state.queue, probe_id, ttl_s=settings.batch_ttl_s)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Any

from arq.connections import ArqRedis
from arq.constants import in_progress_key_prefix
from redis.exceptions import RedisError

from api.jobs.store import QUEUE_NAME
from api.probes.budget import ProbeBudget
from api.probes.ids import PROBE_FUNCTION, PROBE_MAX_TRIES, probe_job_id
from api.probes.meter import BudgetExceeded, Meter, prices_for
from api.probes.record import ProbeRecord
from api.probes.store import ProbeStore, RedisImages, RedisJournal
from eval.probing.overrides import apply_overrides
from eval.probing.params import ProbeParams
from eval.probing.runner import export, run_probe
from eval.probing.setup import build_context, writer_model
from eval.probing.tree import ProbeNode
from eval.t2i.settings import backends_file

log = logging.getLogger("judge.api.probes")
WATCH_S = 1.0
"""How often a running probe job renews its lease and looks for a cancellation."""


class BackendsError(ValueError):
    """The server's backends file is missing, unreadable or lacks the named backend."""


def load_service_backends(path: str | None) -> dict[str, Any] | BackendsError:
    """Read the T2I backends of ``JUDGE_BACKENDS`` (a TOML file of ``[[backends]]``) once, when
    the app or the worker starts: their specs by id, or the error probes will answer with."""
    from eval.t2i import load_backends

    if not path:
        return BackendsError(
            "this service has no T2I backends configured: start it with "
            "JUDGE_BACKENDS=backends.toml ([[backends]] entries with id and model)"
        )
    try:
        return load_backends(Path(path))
    except Exception as exc:  # BackendConfigError names the entry
        return BackendsError(f"the service's backends file is unusable: {exc}")


async def enqueue_probe(queue: ArqRedis, probe_id: str, ttl_s: int) -> None:
    """Queue the probe's job (a no-op while one is queued or running)."""
    await queue.enqueue_job(
        PROBE_FUNCTION,
        probe_id,
        _job_id=probe_job_id(probe_id),
        _queue_name=QUEUE_NAME,
        _expires=ttl_s,
    )


async def requeue_probes(queue: ArqRedis, store: ProbeStore) -> int:
    """Queue a job for every running probe (one whose job was lost, or stored by a version
    that ran probes in the API process); returns how many ids were seen."""
    ids = await store.active()
    for probe_id in ids:
        await enqueue_probe(queue, probe_id, store.ttl_s)
    return len(ids)


def run_limits(stored: dict[str, Any], budget: ProbeBudget) -> dict[str, float]:
    """The limits a run enforces: those the probe was admitted with (``stored``, its
    record's :attr:`~api.probes.record.ProbeRecord.limits`), each lowered to this worker's own
    setting (an operator can tighten the budget of running probes).

    Example:
        >>> run_limits({"images": 10}, ProbeBudget())["images"]
        10.0
    """
    own = budget.limits()
    return {k: min(float(stored.get(k, v)), v) for k, v in own.items()}


class ProbeJob:
    """One run of one probe inside a worker."""

    def __init__(self, ctx: dict[str, Any], probe_id: str):
        self.ctx = ctx
        self.probe_id = probe_id
        self.store = ProbeStore(ctx["redis"], ctx["settings"].batch_ttl_s)
        self.stop_reason: str | None = None
        self.task: asyncio.Task[dict[str, Any]] | None = None
        self.root: ProbeNode | None = None

    def _stop(self, reason: str) -> None:
        if self.stop_reason is None:
            self.stop_reason = reason
        if self.task is not None:
            self.task.cancel()

    async def _watch(self) -> None:
        """Renew arq's in-progress lock and stop the run once the probe is no longer running."""
        lock = in_progress_key_prefix + str(self.ctx.get("job_id", ""))
        lease_ms = int(float(self.ctx.get("lease_s", 30.0)) * 1000)
        while True:
            with contextlib.suppress(RedisError):
                await self.ctx["redis"].pexpire(lock, lease_ms)
                meta = await self.store.meta(self.probe_id)
                if meta is None or not meta.running:
                    self._stop("cancelled")
            await asyncio.sleep(WATCH_S)

    async def run(self) -> str:
        meta = await self.store.meta(self.probe_id)
        if meta is None or not meta.running:
            return "not running"
        tries = int(self.ctx.get("job_try") or 1)
        if tries > PROBE_MAX_TRIES:
            await self.store.finish(
                self.probe_id, "failed", f"no result after {PROBE_MAX_TRIES} attempts"
            )
            return "gave up"
        backends = self.ctx.get("probe_backends")
        if backends is None:
            backends = self.ctx["probe_backends"] = load_service_backends(backends_file())
        params = ProbeParams.model_validate(meta.params)
        if isinstance(backends, BackendsError) or params.backend not in backends:
            problem = backends if isinstance(backends, BackendsError) else "not configured here"
            reason = f"backend {params.backend!r}: {problem}"
            await self.store.finish(self.probe_id, "failed", reason)
            return "failed"
        watcher = asyncio.create_task(self._watch())
        try:
            return await self._run(params, backends[params.backend], meta)
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher

    async def _run(self, params: ProbeParams, spec: Any, meta: ProbeRecord) -> str:
        judge = self.ctx["judge"]
        budget = self.ctx.get("probe_budget") or ProbeBudget()
        try:  # the writer comes from the server's configuration only
            server_side = params.model_copy(update={"model": None})
            writer = budget.writer_model or writer_model(server_side, judge)
        except ValueError as exc:
            await self.store.finish(self.probe_id, "failed", str(exc))
            return "failed"
        params = params.model_copy(update={"model": writer})
        judge_models = judge.settings.models()
        prices = await asyncio.to_thread(
            prices_for, budget, spec, writer, judge_models[0] if judge_models else None
        )
        meter = Meter(
            run_limits(meta.limits, budget),
            prices,
            params.images,
            meta.spent,
            on_exceeded=self._stop,
        )
        ctx = build_context(
            params,
            judge,
            self._generator(judge),
            spec,
            RedisJournal(self.store, self.probe_id),
            RedisImages(self.store, self.probe_id),
            overrides=lambda: self.store.overrides(self.probe_id),
        )
        ctx.meter = meter.charge
        meter.watch_judge(ctx.labeller)

        async def save(root: ProbeNode) -> None:
            self.root = root
            apply_overrides(root, await self.store.overrides(self.probe_id))
            await self.store.save_tree(self.probe_id, export(root, ctx, {"spent": meter.totals()}))
            await self.store.save_spent(self.probe_id, meter.totals())

        self.task = asyncio.create_task(run_probe(ctx, save))
        try:
            tree = await asyncio.shield(self.task)
        except asyncio.CancelledError:
            if self.stop_reason is None:  # the worker is shutting down: leave it to another
                self.task.cancel()
                await self._keep(ctx, meter)
                raise
            return await self._stopped(ctx, meter)
        except BudgetExceeded as exc:
            self._stop(str(exc))
            return await self._stopped(ctx, meter)
        except Exception as exc:
            log.exception("probe %s failed", self.probe_id)
            await self._keep(ctx, meter)
            await self.store.finish(self.probe_id, "failed", f"{type(exc).__name__}: {exc}")
            return "failed"
        tree["spent"] = meter.totals()
        await self.store.save_tree(self.probe_id, tree)
        await self.store.save_spent(self.probe_id, meter.totals())
        await self.store.finish(self.probe_id, "done")
        return "done"

    async def _keep(self, ctx: Any, meter: Meter) -> None:
        """Save the tree as measured so far and the spending."""
        with contextlib.suppress(asyncio.CancelledError):
            if self.task is not None:
                await asyncio.wait([self.task], timeout=5)
        with contextlib.suppress(Exception):
            if self.root is not None:
                extra = {"spent": meter.totals()}
                await self.store.save_tree(self.probe_id, export(self.root, ctx, extra))
            await self.store.save_spent(self.probe_id, meter.totals())

    async def _stopped(self, ctx: Any, meter: Meter) -> str:
        await self._keep(ctx, meter)
        reason = self.stop_reason or "stopped"
        if reason == "cancelled":
            return "cancelled"  # DELETE set the status already
        await self.store.finish(self.probe_id, "stopped", reason)
        return "stopped"

    def _generator(self, judge: Any) -> Any:
        generator = self.ctx.get("probe_generator")
        if generator is None:
            from eval.t2i import ImageGenerator

            generator = self.ctx["probe_generator"] = ImageGenerator(judge.settings)
        return generator
