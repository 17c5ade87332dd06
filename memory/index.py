"""FAISS indexes over unit vectors: exact inner product, or HNSW for large memories.

Inner product on L2-normalised vectors is cosine similarity. Row ``i`` of the index is
exemplar ``i`` of the memory.

Example:
    >>> import numpy as np
    >>> vecs = np.eye(4, dtype=np.float32)
    >>> idx = build_index(vecs, kind="flat")
    >>> sims, ids = search(idx, vecs[2:3], k=2)
    >>> int(ids[0][0]), round(float(sims[0][0]), 3)
    (2, 1.0)
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Literal

import numpy as np

from memory.settings import DataSettings

if TYPE_CHECKING:
    import faiss

IndexKind = Literal["flat", "hnsw"]


@cache
def load_faiss() -> ModuleType:
    """FAISS, imported on first use (the ``[local]`` extra; the core install has none).
    One thread answers a single query fastest, and extra threads hurt on a loaded host (see
    `judge memory bench`); builds use every core."""
    import faiss

    faiss.omp_set_num_threads(DataSettings().faiss_threads)
    return faiss


@contextmanager
def _all_cores() -> Iterator[None]:
    faiss = load_faiss()
    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(os.cpu_count() or 1)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(before)


HNSW_THRESHOLD = 50_000
HNSW_M = 32
HNSW_EF_CONSTRUCTION = 80
HNSW_EF_SEARCH = 256  # recall@3 0.98 at 0.67 ms median on 1M vectors (judge memory bench)


def choose_kind(count: int, threshold: int = HNSW_THRESHOLD) -> IndexKind:
    """Exact search for small memories, HNSW from ``threshold`` exemplars on."""
    return "hnsw" if count >= threshold else "flat"


def new_index(dim: int, kind: IndexKind) -> faiss.Index:
    """An empty index of the given kind for ``dim``-dimensional unit vectors."""
    faiss = load_faiss()
    if kind == "flat":
        return faiss.IndexFlatIP(dim)
    index = faiss.IndexHNSWFlat(dim, HNSW_M, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
    index.hnsw.efSearch = HNSW_EF_SEARCH
    return index


def build_index(vectors: np.ndarray, kind: IndexKind | None = None) -> faiss.Index:
    """Index ``vectors`` (float32, one row per exemplar)."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    index = new_index(vectors.shape[1], kind or choose_kind(len(vectors)))
    if len(vectors):
        with _all_cores():
            index.add(vectors)
    return index


def kind_of(index: faiss.Index) -> IndexKind:
    """``"hnsw"`` or ``"flat"``."""
    return "hnsw" if isinstance(index, load_faiss().IndexHNSWFlat) else "flat"


def search(index: faiss.Index, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top-``k`` similarities and row ids per query (ids are -1 past the index size)."""
    queries = np.ascontiguousarray(queries, dtype=np.float32)
    k = max(1, min(k, index.ntotal)) if index.ntotal else 1
    if kind_of(index) == "hnsw":
        load_faiss().downcast_index(index).hnsw.efSearch = max(HNSW_EF_SEARCH, 2 * k)
    return index.search(queries, k)


def write_index(index: faiss.Index, path: Path) -> None:
    """Serialise to ``path``."""
    load_faiss().write_index(index, str(path))


def read_index(path: Path) -> faiss.Index:
    """Load an index written by :func:`write_index`."""
    return load_faiss().read_index(str(path))
