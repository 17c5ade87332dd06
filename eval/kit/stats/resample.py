"""Resampling with replacement: the draws every bootstrap in the workflows is made of.

A resample of ``n`` rows is one row of ``numpy.random.default_rng(seed).integers(0, n,
size=(n_boot, n))``, drawn in blocks so that no more than ``cells`` indices are held at once.
The draws depend only on ``(n, n_boot, seed)`` and the block size: two statistics bootstrapped
with the same seed over the same rows see the same resamples. (numpy draws small integers
32 bits at a time and drops the unused half at the end of a block, so the block size is part
of the stream: each caller keeps its own.)

* :func:`resample_indices` — the drawn row indices, blocks of shape ``(k, n)``;
* :func:`resample_counts` — the same draws as counts, how often each row was drawn, blocks of
  shape ``(k, n)`` (a resample's total is then a matrix product).

Example:
    >>> blocks = list(resample_indices(4, 3, seed=0))
    >>> sum(b.shape[0] for b in blocks), blocks[0].shape[1]
    (3, 4)
    >>> [int(c.sum()) for c in next(resample_counts(4, 3, seed=0))]
    [4, 4, 4]
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

__all__ = ["COUNT_CELLS", "INDEX_CELLS", "resample_counts", "resample_indices"]

INDEX_CELLS = 1_000_000  # index cells (rows x items) held at once by resample_indices
COUNT_CELLS = 4_000_000  # the block size of resample_counts


def resample_indices(
    n: int, n_boot: int, seed: int | None = 0, *, cells: int = INDEX_CELLS
) -> Iterator[np.ndarray]:
    """Yield blocks of bootstrap row indices, shape ``(k, n)``, ``n_boot`` rows in total.

    Deterministic for a given ``(n, n_boot, seed, cells)``.
    """
    rng = np.random.default_rng(seed)
    step = max(1, min(n_boot, cells // max(n, 1)))
    done = 0
    while done < n_boot:
        k = min(step, n_boot - done)
        yield rng.integers(0, n, size=(k, n))
        done += k


def resample_counts(n: int, n_boot: int, seed: int | None) -> Iterator[np.ndarray]:
    """Blocks of ``(k, n)`` draw counts, ``n_boot`` rows in total (blocks of ``COUNT_CELLS``)."""
    for idx in resample_indices(n, n_boot, seed, cells=COUNT_CELLS):
        k = idx.shape[0]
        flat = (idx + np.arange(k)[:, None] * n).ravel()
        yield np.bincount(flat, minlength=k * n).reshape(k, n)
