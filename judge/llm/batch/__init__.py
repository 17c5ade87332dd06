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

from judge.lazy_exports import lazy_exports

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "judge.llm.batch.deferral": ("DeferredCall", "ItemWaiting", "ProviderBatch", "Ticket"),
        "judge.llm.batch.rounds": ("EXIT_BATCH_PENDING", "BatchPending", "run_in_rounds"),
    },
)
