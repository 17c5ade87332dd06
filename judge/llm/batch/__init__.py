"""Provider batch APIs for the judge's model calls (about half the price, answers later).

- :class:`ProviderBatch` — attach to a gateway; records calls, submits, collects;
- :func:`run_in_rounds` — drive a run in passes until every item is answered;
- :meth:`ProviderBatch.settle` / :class:`ItemWaiting` — one item: its final result, or "not yet";
- :class:`BatchPending` / :data:`EXIT_BATCH_PENDING` — a run that must be re-run to collect.

Names are imported on first use, so a CLI can read the exit code without loading litellm.

Example::

    pb = ProviderBatch(out / "provider-batch", settings, poll_s=30)
    judge = Judge(settings, deferrer=pb)
    await run_in_rounds(pb, one_pass, wait=True)
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "DeferredCall": "judge.llm.batch.deferral",
    "ItemWaiting": "judge.llm.batch.deferral",
    "ProviderBatch": "judge.llm.batch.deferral",
    "Ticket": "judge.llm.batch.deferral",
    "EXIT_BATCH_PENDING": "judge.llm.batch.rounds",
    "BatchPending": "judge.llm.batch.rounds",
    "run_in_rounds": "judge.llm.batch.rounds",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'judge.llm.batch' has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)
