"""The field's public human-judgment sets, read from their published files as downloaded.

Each set is one adapter of :mod:`eval.datasets` (registered there by name, like ``avt`` and
``csv``) built on :class:`eval.datasets.public.base.PublicSet`: the files it expects, its
items and targets, the slices its paper reports by and the paper's baselines (quoted, from
``baselines.json``). Nothing is fetched at run time.

- :mod:`eval.datasets.public.genai` — ``genai-bench``: GenAI-Bench's 1–5 alignment
  ratings, per skill tag;
- :mod:`eval.datasets.public.hpdv2` — ``hpdv2``: the HPD v2 test split's human rankings,
  judged pairwise in the compare mode;
- :mod:`eval.datasets.public.tifa` — ``tifa``: TIFA v1.0's 1–5 faithfulness judgments, with
  the published metrics' per-image scores recomputed on the same items;
- :mod:`eval.datasets.public.agiqa3k` — ``agiqa-3k``: AGIQA-3K's mean opinion scores for
  perceptual quality and text–image correspondence;
- :mod:`eval.datasets.public.evalmuse` — ``evalmuse``: EvalMuse-40k's alignment scores, and
  its element-level yes/no labels against the judge's checklist verdicts;
- :mod:`eval.datasets.public.pickapic` — ``pickapic``: Pick-a-Pic v2's test preferences,
  judged pairwise in the compare mode (parquet shards, read with
  :mod:`eval.datasets.public.parquet_rows`);
- :mod:`eval.datasets.public.richhf` — ``richhf``: RichHF-18K's scores onto rubric dimensions
  and its misaligned words onto checklist failures (TFRecord, read with
  :mod:`eval.datasets.public.tfrecord`), on Pick-a-Pic v1's images found through
  :mod:`eval.datasets.public.shard_index`.
"""
