"""The workflows' shared floor: what every workflow needs and nothing workflow-specific.

- :mod:`eval.kit.client` — one way to get a judgment: in-process, over HTTP to the service,
  or through a provider's batch API;
- :mod:`eval.kit.batch_rounds` — a run's judging in provider-batch passes, until every item
  is answered (or the batches are left running, to collect on the next run);
- :mod:`eval.kit.admin` — one admin client of the service (studies, campaigns, memory
  exemplars), on :mod:`judge.transport`'s retries and errors;
- :mod:`eval.kit.journal` — one crash-safe journal of finished steps;
- :mod:`eval.kit.costs` — what a judge call should cost (every ``--dry-run``'s estimate);
- :mod:`eval.kit.stats` — the statistics: resampling, bootstrap and percentile intervals,
  Kendall's τ-b, Krippendorff's α.
- :mod:`eval.kit.in_process` — adding an in-process T2I backend or editor to its registry;
- :mod:`eval.kit.stored` — the base of the JSON records the service keeps (campaigns,
  studies): unknown fields kept, only the set ones written back.

Lower floors hold what they need themselves: :mod:`memory.io.jsonl` (reading JSONL, errors
named ``FILE:LINE``), :mod:`memory.io.atomic` (whole-or-nothing writes) and
:mod:`judge.io.data_urls` (``data:`` URLs).
"""
