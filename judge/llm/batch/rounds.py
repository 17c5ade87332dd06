"""Drive a run in provider-batch passes: collect, run, submit, and wait or stop.

Example::

    async def one_pass() -> int:
        pb.begin_pass()
        await run_everything_not_done()       # each item inside ``with pb.item():``
        return pb.waiting_items

    try:
        await run_in_rounds(pb, one_pass, wait=False)
    except BatchPending as pending:
        print(pending)                          # "batch b_… submitted; re-run … to collect"
        sys.exit(EXIT_BATCH_PENDING)
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from judge.llm.batch.deferral import ProviderBatch

log = logging.getLogger("judge.llm.batch")

#: exit code of a command that submitted (or still waits for) provider batches: re-run it
EXIT_BATCH_PENDING = 75


class BatchPending(Exception):
    """Items wait for provider batches that have not finished; re-running resumes."""

    def __init__(self, batch_ids: list[str], waiting: int, submitted: list[str] | None = None):
        self.batch_ids = batch_ids
        self.waiting = waiting
        self.submitted = submitted or []
        new = ", ".join(self.submitted)
        old = ", ".join(b for b in batch_ids if b not in self.submitted)
        said = [f"batch {new} submitted"] if new else []
        said += [f"batch {old} still running"] if old else []
        super().__init__(
            f"provider {'; '.join(said)}; {waiting} item(s) wait. Re-run the same command "
            "to collect the answers (or add --wait to poll until they arrive)"
        )


async def run_in_rounds(
    pb: ProviderBatch,
    one_pass: Callable[[], Awaitable[int]],
    *,
    wait: bool,
    max_rounds: int = 50,
) -> int:
    """Run passes until no item waits; returns the number of passes.

    Before each pass the finished batches are collected; after it, what the pass recorded is
    submitted. Without ``wait`` the first pass that leaves items waiting raises
    :class:`BatchPending`; with it, the batches are polled every ``pb.poll_s`` seconds.
    """
    for n in range(1, max_rounds + 1):
        await pb.collect()
        waiting = await one_pass()
        if not waiting:
            return n
        submitted = await pb.submit()
        flying = pb.in_flight()
        if not flying and not pb.has_pending():
            # every waiting call should be pending or in a batch; never spin on nothing
            raise RuntimeError(
                f"{waiting} item(s) wait but no provider batch is in flight; delete "
                f"{pb.folder} to start the batch journal afresh"
            )
        if not wait:
            raise BatchPending(flying, waiting, submitted)
        await _until_one_finishes(pb, set(flying))
    raise RuntimeError(f"items still waiting after {max_rounds} provider-batch rounds")


async def _until_one_finishes(pb: ProviderBatch, flying: set[str]) -> None:
    """Poll until some batch of ``flying`` is no longer in flight."""
    while True:
        await asyncio.sleep(pb.poll_s)
        await pb.collect()
        still = set(pb.in_flight())
        if flying - still:
            return
        log.info("provider batches %s still running", ", ".join(sorted(still)))
