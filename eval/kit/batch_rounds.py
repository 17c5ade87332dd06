"""A workflow's judging in provider-batch passes (:mod:`judge.llm.batch`), in one call.

:func:`in_batch_rounds` opens the batch journal in ``folder``, gives each pass an in-process
:class:`~eval.kit.client.LocalJudge` whose model calls go through the provider's batch API,
and runs passes (:func:`judge.llm.batch.rounds.run_in_rounds`) until no item waits, or, without
``wait``, raises :class:`~judge.llm.batch.rounds.BatchPending` after the first pass that leaves
items waiting. The journal is closed either way. Meta-evaluation and studies run their
``--provider-batch`` mode through it.

Example::

    async def one_pass(client: JudgeClient) -> list[dict]:
        return await score_what_is_not_done(client)   # re-run each pass; done items are skipped

    predictions = await in_batch_rounds(
        run_dir / "provider-batch", settings, one_pass, poll_s=30.0, fallback="batch", wait=False
    )
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from eval.kit.client import JudgeClient, LocalJudge
from judge.config import JudgeSettings
from judge.llm.batch.deferral import ProviderBatch
from judge.llm.batch.rounds import run_in_rounds

T = TypeVar("T")


async def in_batch_rounds(
    folder: Path,
    settings: JudgeSettings,
    one_pass: Callable[[JudgeClient], Awaitable[T]],
    *,
    poll_s: float,
    fallback: str,
    wait: bool,
) -> T:
    """What the last pass of ``one_pass`` returned; ``fallback`` is ``"direct"`` (calls a
    batch cannot take go to the provider directly) or anything else for ``"batch"``."""
    pb = ProviderBatch(
        folder, settings, poll_s=poll_s, fallback="direct" if fallback == "direct" else "batch"
    )
    client = LocalJudge(settings, batch=pb)
    last: list[T] = []

    async def run_pass() -> int:
        pb.begin_pass()
        last[:] = [await one_pass(client)]
        return pb.waiting_items

    try:
        await run_in_rounds(pb, run_pass, wait=wait)
    finally:
        pb.close()
    return last[0]
