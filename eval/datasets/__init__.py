"""Dataset adapters behind a registry: ``avt``, ``expert-jsonl``, ``csv``, ``votes`` and
``edit-ratings``, and the field's public human-judgment sets read as downloaded
(:mod:`eval.datasets.public`: ``genai-bench``, ``hpdv2``, ``tifa``, ``agiqa-3k``, ``evalmuse``,
``pickapic``, ``richhf``). A plugin adds an adapter (a :class:`Dataset` class) with an entry
point in ``t2i_judge.dataset_adapters`` (docs/extending.md).

Example:
    >>> sorted(set(DATASETS) - set(PUBLIC_SETS))
    ['avt', 'csv', 'edit-ratings', 'expert-jsonl', 'votes']
    >>> sorted(PUBLIC_SETS)
    ['agiqa-3k', 'evalmuse', 'genai-bench', 'hpdv2', 'pickapic', 'richhf', 'tifa']
    >>> get_dataset("avt").name
    'avt'
"""

from __future__ import annotations

from typing import Any

from eval.datasets.base import Dataset
from registry import Registry

DATASETS = Registry[type[Dataset]](
    "dataset",
    group="t2i_judge.dataset_adapters",
    lazy={
        "avt": "eval.datasets.avt:AvtDataset",
        "expert-jsonl": "eval.datasets.expert_jsonl:ExpertJsonlDataset",
        "csv": "eval.datasets.csv_table:CsvDataset",
        "votes": "eval.datasets.votes:VotesDataset",
        "edit-ratings": "eval.datasets.edit_ratings:EditRatingsDataset",
        "genai-bench": "eval.datasets.public.genai:GenAIBench",
        "hpdv2": "eval.datasets.public.hpdv2:HPDv2",
        "tifa": "eval.datasets.public.tifa:Tifa",
        "agiqa-3k": "eval.datasets.public.agiqa3k:Agiqa3k",
        "evalmuse": "eval.datasets.public.evalmuse:EvalMuse",
        "pickapic": "eval.datasets.public.pickapic:PickAPic",
        "richhf": "eval.datasets.public.richhf:RichHF",
    },
)
"""Adapter classes by name (``get_dataset`` builds one with its options)."""
PUBLIC_SETS = ("genai-bench", "hpdv2", "tifa", "agiqa-3k", "evalmuse", "pickapic", "richhf")
"""The registered names that are public sets (:class:`eval.datasets.public.base.PublicSet`)."""


def get_dataset(name: str, **options: Any) -> Dataset:
    """An adapter instance; unknown names get a suggestion."""
    return DATASETS.get(name)(**options)
