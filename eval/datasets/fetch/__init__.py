"""``judge datasets``: fetch the public human-judgment sets into the layout their adapters read.

Every fact about a set's files (where they live, their licence and citation, checksums, what
only a person can download) is data, in ``eval/datasets/public/sources.toml``; the code here
only carries it out:

- :mod:`eval.datasets.fetch.catalog` — the catalog, read into small records;
- :mod:`eval.datasets.fetch.download` — a file from a URL (the authors' repository), resumed
  from its partial copy, checked against the publisher's sha256 where there is one;
- :mod:`eval.datasets.fetch.hub` — files of a Hugging Face dataset through
  ``huggingface_hub`` (``HF_ENDPOINT`` honoured), each checked against the Hub's checksum;
- :mod:`eval.datasets.fetch.unpack` — archives unpacked in place, never outside the folder;
- :mod:`eval.datasets.fetch.state` — what a folder already holds, so a second run skips it;
- :mod:`eval.datasets.fetch.run` — one set end to end, then the adapter reads the folder;
- :mod:`eval.datasets.fetch.cli` — the verb: ``list`` and ``fetch``.
"""
