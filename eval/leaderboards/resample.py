"""Bootstrap over prompts: every resample draws the prompts with replacement and keeps all the
votes of each drawn prompt.

A resample is a vector of prompt multiplicities (how often each prompt was drawn); the win
matrix of the resample is that vector times the per-prompt win matrix, so a block of ``k``
resamples is one sparse product. The draws are the kit's
(:func:`eval.kit.stats.resample.resample_counts`): they depend only on
``(n_prompts, n_boot, seed)``.

Example:
    >>> from eval.leaderboards.votes import Vote
    >>> from eval.leaderboards.tally import Tally
    >>> t = Tally.from_votes([Vote("p", "x", "y", "a", "c"), Vote("q", "x", "y", "b", "c")])
    >>> w = np.concatenate(list(boot_wins(t, n_boot=5, seed=0)))
    >>> w.shape, bool(np.all(w.sum(axis=(1, 2)) == 2))
    ((5, 2, 2), True)
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from eval.kit.stats.resample import resample_counts
from eval.leaderboards.tally import Tally

BOOT_CELLS = 4_000_000
"""The most cells of a block of bootstrap win matrices (32 MB): ``k`` resamples of ``M x M``
with ``k = BOOT_CELLS // M**2`` (at least 1). The draws do not depend on it."""


def boot_wins(
    tally: Tally, n_boot: int, seed: int | None, *, cells: int = BOOT_CELLS
) -> Iterator[np.ndarray]:
    """Blocks of (k, M, M) win matrices, one per resample of the prompts, each block at most
    ``cells`` cells (one matrix when a single one is larger)."""
    per_prompt = tally.prompt_matrix().T.tocsr()  # (M*M, P)
    m = tally.n_models
    k = max(1, cells // max(m * m, 1))
    for counts in resample_counts(len(tally.prompts), n_boot, seed):
        for start in range(0, counts.shape[0], k):
            flat = per_prompt @ counts[start : start + k].T.astype(float)  # (M*M, k)
            yield np.ascontiguousarray(flat.T).reshape(-1, m, m)


def boot_votes(tally: Tally, n_boot: int, seed: int | None) -> Iterator[np.ndarray]:
    """Per resample, the indices of its votes (every drawn prompt's votes, once per draw)."""
    for block in resample_counts(len(tally.prompts), n_boot, seed):
        for row in block:
            yield np.repeat(np.arange(tally.prompt.size), row[tally.prompt])


def rank_probabilities(samples: np.ndarray) -> np.ndarray:
    """(M, M) share of resamples in which model ``i`` took rank ``r + 1`` (higher = better).

    >>> rank_probabilities(np.array([[2.0, 1.0], [2.0, 1.0], [1.0, 2.0], [3.0, 0.0]])).tolist()
    [[0.75, 0.25], [0.25, 0.75]]
    """
    b, m = samples.shape
    ranks = np.argsort(np.argsort(-samples, axis=1, kind="stable"), axis=1)
    probs = np.zeros((m, m))
    np.add.at(probs, (np.tile(np.arange(m), b), ranks.ravel()), 1.0)
    return probs / max(b, 1)
