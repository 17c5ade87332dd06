"""Scoring in provider-batch mode: passes of :func:`eval.metaeval.runner.run_items` until
every item is answered (see :mod:`judge.llm.batch`). The journal lives in
``RUN/provider-batch`` and is shared by the main run and its ablation variants (an
identical request is paid once).

Example::

    preds = await score_in_batches(items, settings, dataset, out / "predictions.jsonl",
                                   BatchOptions(out, poll_s=30, wait=True))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.datasets.base import Dataset, EvalItem
from eval.kit.batch_rounds import in_batch_rounds
from eval.kit.client import JudgeClient
from eval.metaeval.runner import run_items
from judge.config import JudgeSettings
from judge.llm.batch.ledger import BatchLedger

FOLDER = "provider-batch"


@dataclass(frozen=True)
class BatchOptions:
    """Where the journal lives and how the run waits."""

    run_dir: Path
    poll_s: float = 30.0
    wait: bool = False
    fallback: str = "batch"


async def score_in_batches(
    items: list[EvalItem],
    settings: JudgeSettings,
    dataset: Dataset,
    out_path: Path,
    options: BatchOptions,
    *,
    concurrency: int = 4,
    overrides: Callable[[EvalItem], dict[str, Any]] = lambda item: {},
    progress: bool = True,
) -> list[dict]:
    """Score ``items`` in passes; raises :class:`judge.llm.batch.BatchPending` when batches
    are still running and ``options.wait`` is off."""

    async def one_pass(client: JudgeClient) -> list[dict]:
        return await run_items(
            items,
            client,
            dataset,
            out_path,
            concurrency=concurrency,
            overrides=overrides,
            progress=progress,
        )

    return await in_batch_rounds(
        options.run_dir / FOLDER,
        settings,
        one_pass,
        poll_s=options.poll_s,
        fallback=options.fallback,
        wait=options.wait,
    )


def batch_summary(run_dir: Path, fallback: str) -> dict[str, Any]:
    """The run's batch accounting for the report: requests by state and route, batches,
    tokens, cost at the batch price, the list price and what the batch discount saved."""
    journal = BatchLedger(run_dir / FOLDER / "journal.sqlite")
    try:
        return {"fallback": fallback, **journal.summary()}
    finally:
        journal.close()
