"""Running probes inside the service: one asyncio task per probe, a Redis lease so only one
process runs a probe at a time, and a resumer that picks up unfinished probes after a restart.

A probe's steps are journaled in Redis (:class:`api.probes.store.RedisJournal`), so a probe
resumed by another process repeats no finished step. Anything that goes wrong ends the probe as
``failed`` with the reason; it never takes the service down.

Example (inside the lifespan)::

    app.state.probes = ProbeRunner(app)
    background.append(asyncio.create_task(app.state.probes.resume_forever()))
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import uuid
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from api.probes.store import ProbeStore, RedisImages, RedisJournal
from eval.probing.overrides import apply_overrides
from eval.probing.params import ProbeParams
from eval.probing.runner import export, run_probe
from eval.probing.setup import build_context
from eval.probing.tree import ProbeNode

log = logging.getLogger("judge.api.probes")
LEASE_S = 30.0


class BackendsError(ValueError):
    """The server's backends file is missing, unreadable or lacks the named backend."""


def load_service_backends(path: str | None) -> dict[str, Any] | BackendsError:
    """Read the T2I backends of ``JUDGE_BACKENDS`` (a TOML file of ``[[backends]]``) once, when
    the app is created: their ids, or the error every probe request will answer with."""
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


def service_backends(app: FastAPI) -> dict[str, Any]:
    """The service's T2I backends by id, as read when the app was created; raises
    :class:`BackendsError` when there are none or the file was unusable."""
    loaded = getattr(app.state, "backends", None)
    if loaded is None:  # an app built without create_app: read the environment's file now
        loaded = app.state.backends = load_service_backends(os.environ.get("JUDGE_BACKENDS"))
    if isinstance(loaded, BackendsError):
        raise loaded
    return loaded


class ProbeRunner:
    """Starts, leases and resumes probes of one service process."""

    def __init__(self, app: FastAPI):
        self.app = app
        self.holder = uuid.uuid4().hex
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self._generator: Any = None

    @property
    def store(self) -> ProbeStore:
        return ProbeStore(self.app.state.redis, self.app.state.settings.batch_ttl_s)

    def generator(self) -> Any:
        if self._generator is None:
            from eval.t2i import ImageGenerator

            self._generator = ImageGenerator(self.app.state.judge.settings)
        return self._generator

    async def start(self, probe_id: str) -> bool:
        """Run ``probe_id`` here unless it runs already (here or elsewhere)."""
        running = self.tasks.get(probe_id)
        if running is not None and not running.done():
            return False
        if not await self.store.take_lease(probe_id, self.holder, LEASE_S):
            return False
        self.tasks[probe_id] = asyncio.create_task(self._run(probe_id), name=f"probe-{probe_id}")
        return True

    async def _hold(self, probe_id: str) -> None:
        while True:
            await asyncio.sleep(LEASE_S / 3)
            with contextlib.suppress(Exception):
                await self.store.renew_lease(probe_id, self.holder, LEASE_S)

    async def _run(self, probe_id: str) -> None:
        store = self.store
        lease = asyncio.create_task(self._hold(probe_id))
        try:
            meta = await store.meta(probe_id)
            if meta is None or meta.get("status") != "running":
                return
            params = ProbeParams.model_validate(json.loads(meta["params"]))
            try:
                spec = service_backends(self.app)[params.backend]
            except (BackendsError, KeyError) as exc:
                await store.finish(probe_id, "failed", f"backend {params.backend!r}: {exc}")
                return
            ctx = build_context(
                params,
                self.app.state.judge,
                self.generator(),
                spec,
                RedisJournal(store, probe_id),
                RedisImages(store, probe_id),
                overrides=lambda: store.overrides(probe_id),
            )

            async def save(root: ProbeNode) -> None:
                apply_overrides(root, await store.overrides(probe_id))
                await store.save_tree(probe_id, export(root, ctx))

            tree = await run_probe(ctx, save)
            await store.save_tree(probe_id, tree)
            await store.finish(probe_id, "done")
        except asyncio.CancelledError:
            raise  # shutdown: the probe stays active and is resumed later
        except Exception as exc:
            log.exception("probe %s failed", probe_id)
            with contextlib.suppress(Exception):
                await store.finish(probe_id, "failed", f"{type(exc).__name__}: {exc}")
        finally:
            lease.cancel()
            with contextlib.suppress(Exception):
                await store.drop_lease(probe_id, self.holder)

    async def resume_once(self) -> list[str]:
        """Start every unfinished probe whose lease is free; returns the ids started."""
        started = []
        for probe_id in await self.store.active():
            if await self.start(probe_id):
                started.append(probe_id)
        return started

    async def resume_forever(self, interval_s: float | None = None) -> None:
        """Resume unfinished probes now and then every ``interval_s`` (reconcile interval)."""
        interval = interval_s or self.app.state.settings.reconcile_interval_s
        while True:
            try:
                started = await self.resume_once()
                if started:
                    log.warning("resumed %d probe(s): %s", len(started), started)
            except Exception as exc:  # Redis down: next round
                log.warning("probe resumer: %s", exc)
            await asyncio.sleep(interval)

    async def stop(self) -> None:
        for task in self.tasks.values():
            task.cancel()
        if self.tasks:
            await asyncio.wait(list(self.tasks.values()), timeout=5)
