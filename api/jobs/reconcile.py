"""The batch reconciler: runs in every API process and queues the jobs of batches whose
queueing a crash interrupted (stored, never queued).

Example (inside the lifespan)::

    task = asyncio.create_task(reconcile_batches(state))
"""

from __future__ import annotations

import asyncio
import logging

from api.core.state import CoreState
from api.jobs.store import BatchStore

log = logging.getLogger("judge.api")


async def reconcile_batches(state: CoreState) -> None:
    """Every ``reconcile_interval_s``: queue the jobs of batches stored but never queued."""
    settings = state.settings
    interval = settings.reconcile_interval_s
    store = BatchStore(state.redis, ttl_s=settings.batch_ttl_s)
    while True:
        try:
            healed = await store.requeue_stalled(state.queue, older_than_s=interval)
            if healed:
                log.warning("re-queued %d batch(es) left unqueued: %s", len(healed), healed)
        except Exception as exc:  # Redis down: try again next round
            log.warning("batch reconciler: %s", exc)
        await asyncio.sleep(interval)
