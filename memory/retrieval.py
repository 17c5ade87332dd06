"""Retrieval strategies for calibration exemplars (ablations of the reference design).

- ``similarity`` (default): top-k by cosine similarity to the query;
- ``random``: k exemplars drawn at random (seeded by the query, so reruns agree);
- ``fixed``: one fixed, diverse set for every query — spread over task categories and
  over the range of mean scores;
- ``none``: no exemplars (zero-shot).

Only exemplars that score every wanted dimension are eligible.

Example::

    hits = retrieve(memory, "a foggy harbour at dawn", k=3, strategy="similarity",
                    dimensions=["instructional_clarity"])
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable
from typing import Literal

import numpy as np
from PIL import Image

from memory.exemplar import ExemplarRecord
from memory.memory import Hit, Memory

Strategy = Literal["similarity", "random", "fixed", "none"]
STRATEGIES: tuple[str, ...] = ("similarity", "random", "fixed", "none")


def _eligible(rec: ExemplarRecord, dims: Iterable[str], exclude: set[str]) -> bool:
    return rec.id not in exclude and all(d in rec.scores for d in dims)


def fixed_set(records: list[ExemplarRecord], k: int, dims: list[str]) -> list[int]:
    """Row ids of a deterministic diverse set: round-robin over categories, each taking
    the exemplar closest to evenly spaced quantiles of the mean score."""
    rows = [i for i, r in enumerate(records) if all(d in r.scores for d in dims)]
    if not rows or k <= 0:
        return []

    def mean(i: int) -> float:
        sc = records[i].scores
        keys = dims or list(sc)
        return sum(sc[d] for d in keys) / len(keys)

    rows.sort(key=lambda i: (mean(i), records[i].id))
    targets = np.linspace(0, len(rows) - 1, num=min(k, len(rows)))
    chosen: list[int] = []
    cats = sorted({records[i].category or "" for i in rows})
    for n, t in enumerate(targets):
        cat = cats[n % len(cats)]
        pool = [i for i in rows if (records[i].category or "") == cat and i not in chosen]
        pool = pool or [i for i in rows if i not in chosen]
        best = min(pool, key=lambda i: abs(rows.index(i) - t))
        chosen.append(best)
    return chosen


def retrieve(
    memory: Memory,
    query: str | Image.Image | np.ndarray,
    *,
    k: int = 3,
    strategy: str = "similarity",
    dimensions: list[str] | None = None,
    exclude_ids: Iterable[str] = (),
) -> list[Hit]:
    """Exemplars for one query under ``strategy``."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown retrieval strategy {strategy!r}; use one of {STRATEGIES}")
    dims = list(dimensions or [])
    exclude = set(exclude_ids)
    if strategy == "none" or k <= 0 or not memory.records:
        return []
    if strategy == "fixed":
        rows = [
            r for r in fixed_set(memory.records, k, dims) if memory.records[r].id not in exclude
        ]
        return [Hit(memory.records[r], None, r) for r in rows]
    vector = query if isinstance(query, np.ndarray) else memory.embed_query(query)
    if strategy == "random":
        seed = int.from_bytes(hashlib.sha256(vector.tobytes()).digest()[:8], "big")
        rows = [i for i, r in enumerate(memory.records) if _eligible(r, dims, exclude)]
        picked = random.Random(seed).sample(rows, min(k, len(rows)))
        sims = memory.vectors[picked] @ vector.reshape(-1)
        return [Hit(memory.records[i], float(s), i) for i, s in zip(picked, sims, strict=True)]
    want = k
    while True:
        hits = memory.search_vector(vector, want)
        good = [h for h in hits if _eligible(h.record, dims, exclude)]
        if len(good) >= k or want >= len(memory.records):
            return good[:k]
        want = min(len(memory.records), want * 4)
