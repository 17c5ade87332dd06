"""Dataset adapters behind a registry: ``avt``, ``expert-jsonl``, ``csv``, ``votes`` and
``edit-ratings``, and the field's public human-judgment sets read as downloaded
(:mod:`eval.datasets.public`: ``genai-bench``, ``hpdv2``, ``tifa``, ``agiqa-3k``, ``evalmuse``,
``pickapic``, ``richhf``).

Example:
    >>> sorted(set(DATASETS) - set(PUBLIC_SETS))
    ['avt', 'csv', 'edit-ratings', 'expert-jsonl', 'votes']
    >>> sorted(PUBLIC_SETS)
    ['agiqa-3k', 'evalmuse', 'genai-bench', 'hpdv2', 'pickapic', 'richhf', 'tifa']
    >>> get_dataset("avt").name
    'avt'
"""

from __future__ import annotations

import difflib
import importlib
from typing import Any

from eval.datasets.base import Dataset

DATASETS: dict[str, str] = {
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
}
PUBLIC_SETS = ("genai-bench", "hpdv2", "tifa", "agiqa-3k", "evalmuse", "pickapic", "richhf")
"""The registered names that are public sets (:class:`eval.datasets.public.base.PublicSet`)."""


def get_dataset(name: str, **options: Any) -> Dataset:
    """An adapter instance; unknown names get a suggestion."""
    if name not in DATASETS:
        close = difflib.get_close_matches(name, DATASETS, n=1)
        hint = f"; did you mean {close[0]!r}" if close else ""
        raise KeyError(f"unknown dataset {name!r}{hint}; available: {sorted(DATASETS)}")
    module, _, attr = DATASETS[name].partition(":")
    cls = getattr(importlib.import_module(module), attr)
    return cls(**options)
